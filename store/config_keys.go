package store

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

type valueKind int

const (
	kindScalar  valueKind = iota // bool, int: parsed as YAML
	kindString                   // string, duration: taken literally from the command line
	kindList                     // sequence
	kindObjects                  // sequence of mappings
)

// keySpec is one configuration key, read from a field of Config and its
// tags (see Config): how to parse, validate, store and read it.
type keySpec struct {
	key     string
	kind    valueKind
	allowed string
	index   []int // of the field in Config
	lo, hi  int64 // range of an int or a duration
	enum    []string
	check   func(string) error
}

var (
	specs     = map[string]*keySpec{}
	specOrder []string
	// groups are the mapping keys that hold other keys.
	groups = map[string]bool{}
	// checks are the validations a check tag names.
	checks = map[string]func(string) error{"glob": checkGlob, "regex": checkRegex, "rule_id": checkRuleID,
		"nonempty": checkNonEmpty, "env_name": checkEnvName}
)

func init() { registerFields(reflect.TypeFor[Config](), "", nil) }

// registerFields makes a keySpec of every field of t, in field order, and
// a group of every nested struct.
func registerFields(t reflect.Type, prefix string, index []int) {
	for i := range t.NumField() {
		f := t.Field(i)
		key := prefix + f.Tag.Get("json")
		idx := append(slices.Clone(index), i)
		if f.Type.Kind() == reflect.Struct {
			groups[key] = true
			registerFields(f.Type, key+".", idx)
			continue
		}
		s := &keySpec{key: key, index: idx, allowed: f.Tag.Get("allowed"), check: checks[f.Tag.Get("check")]}
		if r := f.Tag.Get("range"); r != "" {
			lo, hi, _ := strings.Cut(r, ",")
			s.lo, s.hi = parseBound(f.Type, lo), parseBound(f.Type, hi)
		}
		switch f.Type {
		case reflect.TypeFor[bool]():
			s.kind, s.allowed = kindScalar, "true, false"
		case reflect.TypeFor[int]():
			s.kind, s.allowed = kindScalar, fmt.Sprintf("an integer from %d to %d", s.lo, s.hi)
		case reflect.TypeFor[time.Duration]():
			s.kind, s.allowed = kindString, fmt.Sprintf("a duration from %s to %s, such as 500ms, 2s, 5m, 4h",
				FormatDuration(time.Duration(s.lo)), FormatDuration(time.Duration(s.hi)))
		case reflect.TypeFor[string]():
			s.kind = kindString
			if e := f.Tag.Get("enum"); e != "" {
				s.enum = strings.Split(e, ",")
				s.allowed = strings.Join(s.enum, ", ")
			}
		case reflect.TypeFor[[]string]():
			s.kind = kindList
		case reflect.TypeFor[[]ExtraRule]():
			s.kind = kindObjects
		default:
			panic("store: configuration field " + f.Name + " has an unsupported type")
		}
		specs[key] = s
		specOrder = append(specOrder, key)
	}
}

// parseBound reads one bound of a range tag: an integer, or a duration.
func parseBound(t reflect.Type, s string) int64 {
	if t == reflect.TypeFor[time.Duration]() {
		d, err := time.ParseDuration(s)
		if err != nil {
			panic("store: bad duration in a range tag: " + s)
		}
		return int64(d)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic("store: bad integer in a range tag: " + s)
	}
	return n
}

// get returns the key's value in c (a copy of a list).
func (s *keySpec) get(c *Config) any {
	v := reflect.ValueOf(c).Elem().FieldByIndex(s.index)
	if v.Kind() == reflect.Slice {
		return reflect.AppendSlice(reflect.MakeSlice(v.Type(), 0, v.Len()), v).Interface()
	}
	return v.Interface()
}

// apply validates the value n and stores it in c.
func (s *keySpec) apply(c *Config, n *yaml.Node) error {
	dst := reflect.ValueOf(c).Elem().FieldByIndex(s.index)
	switch s.kind {
	case kindList:
		out, err := stringList(n, s.check)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(out))
		return nil
	case kindObjects:
		return extraRules(c, n)
	}
	v, err := scalar(n)
	if err != nil {
		return err
	}
	switch dst.Interface().(type) {
	case bool:
		b, err := strconv.ParseBool(strings.ToLower(v))
		if err != nil || n.Tag != "!!bool" {
			return errors.New("not a boolean")
		}
		dst.SetBool(b)
	case int:
		i, err := strconv.Atoi(v)
		if err != nil || n.Tag != "!!int" {
			return errors.New("not an integer")
		}
		if int64(i) < s.lo || int64(i) > s.hi {
			return errors.New("out of range")
		}
		dst.SetInt(int64(i))
	case time.Duration:
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return errors.New("not a duration (a number needs a unit)")
		}
		if int64(d) < s.lo || int64(d) > s.hi {
			return errors.New("out of range")
		}
		dst.SetInt(int64(d))
	default:
		if s.enum != nil && !slices.Contains(s.enum, v) {
			return errors.New("not one of the allowed values")
		}
		if s.check != nil {
			if err := s.check(v); err != nil {
				return err
			}
		}
		dst.SetString(v)
	}
	return nil
}

func groupKeys(g string) []string {
	var out []string
	for _, k := range specOrder {
		if rest, ok := strings.CutPrefix(k, g+"."); ok {
			out = append(out, rest)
		}
	}
	return out
}

func scalar(n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", errors.New("expected a single value")
	}
	if n.Tag == "!!null" {
		return "", errors.New("value is empty")
	}
	return n.Value, nil
}

// itemError is a problem with one element of a list value: it carries
// the element's line and text so the error points at the element.
type itemError struct {
	line  int
	value string
	err   error
}

func (e *itemError) Error() string { return e.err.Error() }
func (e *itemError) Unwrap() error { return e.err }

func itemErr(n *yaml.Node, format string, args ...any) error {
	return &itemError{line: n.Line, value: nodeText(n), err: fmt.Errorf(format, args...)}
}

func stringList(n *yaml.Node, check func(string) error) ([]string, error) {
	out := []string{}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return out, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errors.New("expected a list")
	}
	for _, e := range n.Content {
		e = resolve(e)
		if e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
			return nil, itemErr(e, "list items must be plain values")
		}
		if e.Value == "" {
			return nil, itemErr(e, "empty list item")
		}
		if check != nil {
			if err := check(e.Value); err != nil {
				return nil, itemErr(e, "list item %q: %w", e.Value, err)
			}
		}
		out = append(out, e.Value)
	}
	return out, nil
}

func checkGlob(p string) error {
	if _, err := path.Match(p, ""); err != nil {
		return errors.New("malformed glob pattern")
	}
	return nil
}

func checkRegex(p string) error {
	if len(p) > 4096 {
		return errors.New("regular expression longer than 4096 bytes")
	}
	if _, err := regexp.Compile(p); err != nil {
		return err
	}
	return nil
}

var ruleIDRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

func checkRuleID(id string) error {
	if !ruleIDRe().MatchString(id) {
		return errors.New("rule ids are 1-64 letters, digits, '-', '_' or '.'")
	}
	return nil
}

func checkNonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("must not be empty")
	}
	return nil
}

var envNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

func checkEnvName(s string) error {
	if !envNameRe().MatchString(s) {
		return errors.New("not a valid environment variable name")
	}
	return nil
}

func extraRules(c *Config, n *yaml.Node) error {
	out := []ExtraRule{}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		c.Redaction.ExtraRules = out
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return errors.New("expected a list of rules")
	}
	ids := map[string]bool{}
	for _, e := range n.Content {
		e = resolve(e)
		if e.Kind != yaml.MappingNode {
			return itemErr(e, "each rule is a mapping with id, regex and optional keywords")
		}
		var r ExtraRule
		var regexNode *yaml.Node
		for i := 0; i+1 < len(e.Content); i += 2 {
			k, v := e.Content[i], resolve(e.Content[i+1])
			switch k.Value {
			case "id", "regex":
				s, err := scalar(v)
				if err != nil {
					return itemErr(v, "%s: %w", k.Value, err)
				}
				if k.Value == "id" {
					r.ID = s
				} else {
					r.Regex, regexNode = s, v
				}
			case "keywords":
				kw, err := stringList(v, nil)
				if err != nil {
					return err
				}
				r.Keywords = kw
			default:
				return itemErr(k, "unknown rule field %q (id, regex, keywords)", k.Value)
			}
		}
		if err := checkRuleID(r.ID); err != nil {
			return itemErr(e, "rule id %q: %w", r.ID, err)
		}
		if ids[r.ID] {
			return itemErr(e, "duplicate rule id %q", r.ID)
		}
		ids[r.ID] = true
		if r.Regex == "" {
			return itemErr(e, "rule %q has no regex", r.ID)
		}
		if err := checkRegex(r.Regex); err != nil {
			return itemErr(regexNode, "rule %q: %w", r.ID, err)
		}
		out = append(out, r)
	}
	c.Redaction.ExtraRules = out
	return nil
}
