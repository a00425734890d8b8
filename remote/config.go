package remote

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ben10ctx/ben10/store"
)

// Remote is one configured remote: a bucket and prefix on an
// S3-compatible server. It holds no credentials.
type Remote struct {
	Name string `yaml:"-"`
	// URL is s3://BUCKET[/PREFIX].
	URL string `yaml:"url"`
	// Endpoint is the server's URL (http:// or https://); empty means
	// Amazon S3.
	Endpoint string `yaml:"endpoint,omitempty"`
	// Region is the bucket's region; empty means AWS_REGION, then
	// us-east-1.
	Region string `yaml:"region,omitempty"`
	// Projects are the project directories pushed to this remote from this
	// machine (push --all pushes them again).
	Projects []string `yaml:"projects,omitempty"`
}

var bucketRe = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// ParseURL splits s3://BUCKET[/PREFIX] into the bucket and the prefix
// (empty, or ending with "/").
func ParseURL(s string) (bucket, prefix string, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", "", fmt.Errorf("%w: %q (want s3://BUCKET[/PREFIX])", ErrBadURL, s)
	}
	if !bucketRe.MatchString(u.Host) {
		return "", "", fmt.Errorf("%w: %q: bucket %q is not a valid bucket name", ErrBadURL, s, u.Host)
	}
	prefix = strings.Trim(u.Path, "/")
	for _, part := range strings.Split(prefix, "/") {
		if prefix != "" && (part == "" || part == "." || part == "..") {
			return "", "", fmt.Errorf("%w: %q: empty, . or .. in the prefix", ErrBadURL, s)
		}
	}
	if prefix != "" {
		prefix += "/"
	}
	return u.Host, prefix, nil
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidName checks a remote's name: letters, digits, '_', '.', '-', up to
// 64, starting with a letter or digit.
func ValidName(name string) error {
	if !nameRe.MatchString(name) {
		return fmt.Errorf("remote: invalid remote name %q (letters, digits, _ . -; up to 64)", name)
	}
	return nil
}

// Config is the user's remotes file, ~/.claude-code/remotes.yaml.
type Config struct {
	Default string             `yaml:"default,omitempty"`
	Remotes map[string]*Remote `yaml:"remotes,omitempty"`
	path    string
}

// ConfigPath is the remotes file of the user whose home is home.
func ConfigPath(home string) string { return filepath.Join(home, ".claude-code", "remotes.yaml") }

// LoadConfig reads the remotes file (a missing file is an empty Config).
func LoadConfig(home string) (*Config, error) {
	c := &Config{path: ConfigPath(home), Remotes: map[string]*Remote{}}
	b, err := store.ReadFileBounded(c.path, 1<<20)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remote: reading %s: %w", c.path, err)
	}
	if err := yaml.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("remote: %s: %w", c.path, err)
	}
	if c.Remotes == nil {
		c.Remotes = map[string]*Remote{}
	}
	for name, r := range c.Remotes {
		if r == nil {
			return nil, fmt.Errorf("remote: %s: remote %q is empty", c.path, name)
		}
		if err := ValidName(name); err != nil {
			return nil, fmt.Errorf("%s: %w", c.path, err)
		}
		if _, _, err := ParseURL(r.URL); err != nil {
			return nil, fmt.Errorf("%s: remote %q: %w", c.path, name, err)
		}
		r.Name = name
	}
	return c, nil
}

// Save writes the file atomically (0600).
func (c *Config) Save() error {
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	b, err := yaml.Marshal(c)
	if err != nil {
		return fmt.Errorf("remote: encoding %s: %w", c.path, err)
	}
	head := "# Ben10 remotes (ben10 remote add|remove). No credentials here: they come\n# from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or ~/.aws/credentials.\n"
	return store.WriteFileAtomic(c.path, append([]byte(head), b...))
}

// Add adds r (its Name set); an existing name is an error.
func (c *Config) Add(r Remote) error {
	if err := ValidName(r.Name); err != nil {
		return err
	}
	if _, _, err := ParseURL(r.URL); err != nil {
		return err
	}
	if r.Endpoint != "" {
		u, err := url.Parse(r.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("remote: invalid endpoint %q (want http(s)://HOST[:PORT])", r.Endpoint)
		}
	}
	if _, ok := c.Remotes[r.Name]; ok {
		return fmt.Errorf("remote: %q already exists (ben10 remote remove %s first)", r.Name, r.Name)
	}
	c.Remotes[r.Name] = &r
	if c.Default == "" {
		c.Default = r.Name
	}
	return nil
}

// Remove removes the remote named name.
func (c *Config) Remove(name string) error {
	if _, ok := c.Remotes[name]; !ok {
		return fmt.Errorf("%w: %q", ErrNoRemote, name)
	}
	delete(c.Remotes, name)
	if c.Default == name {
		c.Default = ""
		if names := c.Names(); len(names) == 1 {
			c.Default = names[0]
		}
	}
	return nil
}

// Names lists the remotes in order.
func (c *Config) Names() []string {
	return slices.Sorted(maps.Keys(c.Remotes))
}

// Get returns the remote named name, or the default one when name is "".
func (c *Config) Get(name string) (*Remote, error) {
	if name == "" {
		name = c.Default
		if name == "" {
			if len(c.Remotes) == 0 {
				return nil, fmt.Errorf("%w: none configured (ben10 remote add NAME s3://BUCKET/PREFIX)", ErrNoRemote)
			}
			return nil, fmt.Errorf("%w: several remotes and no default; name one of %s", ErrNoRemote, strings.Join(c.Names(), ", "))
		}
	}
	r, ok := c.Remotes[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (configured: %s)", ErrNoRemote, name, strings.Join(c.Names(), ", "))
	}
	return r, nil
}

// AddProject records dir as pushed to r; it reports whether it was new.
func (r *Remote) AddProject(dir string) bool {
	if slices.Contains(r.Projects, dir) {
		return false
	}
	r.Projects = append(r.Projects, dir)
	sort.Strings(r.Projects)
	return true
}
