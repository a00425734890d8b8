// Package fuzz holds the native Go fuzz targets of every layer, one file
// per area (fuzz/<area>_test.go). Seed corpora come from the golden files in
// testdata/ and from testdata/fuzz/<Target>/ here. A few targets live
// beside the code they fuzz; `make fuzz FUZZTIME=2m` runs every target of
// the module, found with `go test -list '^Fuzz'` (scripts/fuzz.sh).
package fuzz
