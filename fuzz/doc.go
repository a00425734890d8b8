// Package fuzz holds the native Go fuzz targets of every layer, one file
// per area (fuzz/<area>_test.go). Seed corpora come from the golden files in
// testdata/ and from testdata/fuzz/<Target>/ here; run them all with
// `make fuzz FUZZTIME=2m`.
package fuzz
