package redact_test

import (
	"fmt"

	"github.com/ben10ctx/ben10/redact"
)

func Example() {
	r := redact.Default()
	out, rep := r.String("DB_PASSWORD=Tr0ub4dor&3x\nexport PATH=/usr/bin")
	fmt.Println(out)
	fmt.Println(rep.Counts)
	// Output:
	// DB_PASSWORD=[REDACTED:generic-password]
	// export PATH=/usr/bin
	// map[generic-password:1]
}

func ExampleRedactor_JSONLine() {
	r := redact.Default()
	out, _ := r.JSONLine([]byte(`{"user":"bob","password":"Tr0ub4dor&3x","tries":3}`))
	fmt.Println(string(out))
	// Output:
	// {"user":"bob","password":"[REDACTED:generic-password]","tries":3}
}

func ExampleNew() {
	r, err := redact.New(redact.Config{
		Disabled:    []string{"us-ssn"},
		Extra:       []redact.UserRule{{ID: "acme-key", Regex: `ACME-[A-Z0-9]{16}`, Keywords: []string{"acme-"}}},
		Replacement: "<%s>",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := r.String("key ACME-0123456789ABCDEF, ssn 123-45-6780")
	fmt.Println(out)
	// Output:
	// key <acme-key>, ssn 123-45-6780
}

func ExampleExcluded() {
	fmt.Println(redact.Excluded("/home/u/app/.env.local", redact.DefaultExcludePatterns()))
	fmt.Println(redact.Excluded("/home/u/app/main.go", redact.DefaultExcludePatterns()))
	// Output:
	// true
	// false
}
