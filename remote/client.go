package remote

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// markerName is the one plaintext object under the prefix: the format
// version and the team key's public fingerprint.
const markerName = "ben10-remote.json"

type marker struct {
	Format string `json:"format"`
	KeyID  string `json:"key_id"`
}

// Client talks to one remote with one team key.
type Client struct {
	r      Remote
	mc     *minio.Client
	bucket string
	prefix string
	key    *Key
	// Progress, when set, is called with bytes transferred so far and the
	// total expected, from several goroutines.
	Progress func(done, total int64)
	// Workers is how many objects are transferred at once (default 4).
	Workers int
	// afterPut, in tests, runs after each chunk upload (and may cancel).
	afterPut func()
}

// Credentials are looked up as the AWS tools do: AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) first, then the profile
// AWS_PROFILE (default "default") of AWS_SHARED_CREDENTIALS_FILE or
// ~/.aws/credentials. Ben10 never takes them from its command line and
// never stores them.
func chainCredentials() *credentials.Credentials {
	return credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{},
	})
}

// Dial connects to r with key k. It checks the bucket's marker: a marker
// written under another key is ErrWrongKey. When create is set, a missing
// bucket is created and a missing marker written (the first push).
func Dial(ctx context.Context, r Remote, k *Key, create bool) (*Client, error) {
	bucket, prefix, err := ParseURL(r.URL)
	if err != nil {
		return nil, err
	}
	endpoint, secure := "s3.amazonaws.com", true
	if r.Endpoint != "" {
		u, err := url.Parse(r.Endpoint)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("remote %q: invalid endpoint %q", r.Name, r.Endpoint)
		}
		endpoint, secure = u.Host, u.Scheme == "https"
	}
	region := r.Region
	if region == "" {
		region = os.Getenv("AWS_REGION")
	}
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	mc, err := minio.New(endpoint, &minio.Options{Creds: chainCredentials(), Secure: secure, Region: region})
	if err != nil {
		return nil, fmt.Errorf("remote %q: %w", r.Name, err)
	}
	c := &Client{r: r, mc: mc, bucket: bucket, prefix: prefix, key: k, Workers: 4}
	if err := c.checkMarker(ctx, create); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Client) where(key string) string { return "s3://" + c.bucket + "/" + key }

func (c *Client) checkMarker(ctx context.Context, create bool) error {
	name := c.prefix + markerName
	b, err := c.get(ctx, name, 4<<10)
	if isNotFound(err) {
		if !create {
			return fmt.Errorf("remote %q: %s holds no Ben10 data yet (nothing was pushed)", c.r.Name, c.where(c.prefix))
		}
		if err := c.ensureBucket(ctx); err != nil {
			return err
		}
		m, _ := json.Marshal(marker{Format: "ben10-remote-1", KeyID: c.key.ID()})
		return c.put(ctx, name, m)
	}
	if err != nil {
		return err
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil || m.Format != "ben10-remote-1" {
		return fmt.Errorf("%w: %s: not a Ben10 remote marker", ErrCorrupt, c.where(name))
	}
	if m.KeyID != c.key.ID() {
		return fmt.Errorf("%w: remote %q (%s) is encrypted with team key %s, yours is %s (get the team's key from a teammate: ben10 remote key import %s)",
			ErrWrongKey, c.r.Name, c.where(c.prefix), m.KeyID, c.key.ID(), c.r.Name)
	}
	return nil
}

func (c *Client) ensureBucket(ctx context.Context) error {
	ok, err := c.mc.BucketExists(ctx, c.bucket)
	if err != nil {
		return fmt.Errorf("remote %q: bucket %s: %w", c.r.Name, c.bucket, err)
	}
	if ok {
		return nil
	}
	if err := c.mc.MakeBucket(ctx, c.bucket, minio.MakeBucketOptions{Region: c.r.Region}); err != nil {
		return fmt.Errorf("remote %q: creating bucket %s: %w", c.r.Name, c.bucket, err)
	}
	return nil
}

func isNotFound(err error) bool {
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		return er.Code == "NoSuchKey" || er.StatusCode == 404
	}
	return false
}

// get reads an object of at most max bytes.
func (c *Client) get(ctx context.Context, key string, max int64) ([]byte, error) {
	o, err := c.mc.GetObject(ctx, c.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("remote: reading %s: %w", c.where(key), err)
	}
	defer o.Close()
	b, err := io.ReadAll(io.LimitReader(o, max+1))
	if err != nil {
		if isNotFound(err) {
			return nil, err
		}
		return nil, fmt.Errorf("remote: reading %s: %w", c.where(key), err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrCorrupt, c.where(key), max)
	}
	return b, nil
}

// put writes an object in one request: S3 makes it visible only once
// complete, so an interrupted put leaves nothing that looks whole.
func (c *Client) put(ctx context.Context, key string, b []byte) error {
	_, err := c.mc.PutObject(ctx, c.bucket, key, bytes.NewReader(b), int64(len(b)), minio.PutObjectOptions{
		ContentType: "application/octet-stream", DisableMultipart: true, SendContentMd5: true,
	})
	if err != nil {
		return fmt.Errorf("remote: writing %s: %w", c.where(key), err)
	}
	return nil
}

// object is a listed object.
type object struct {
	Key      string
	Size     int64
	Modified time.Time
}

func (c *Client) list(ctx context.Context, prefix string) ([]object, error) {
	var out []object
	for o := range c.mc.ListObjects(ctx, c.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("remote: listing %s: %w", c.where(prefix), o.Err)
		}
		out = append(out, object{o.Key, o.Size, o.LastModified})
	}
	return out, nil
}

func (c *Client) chunkKey(id string) string     { return c.prefix + "chunks/" + id[:2] + "/" + id }
func (c *Client) projectDir(pid string) string  { return c.prefix + "projects/" + pid + "/" }
func (c *Client) manifestDir(pid string) string { return c.projectDir(pid) + "manifests/" }

// chunkSet lists the chunks present in the bucket with their time.
func (c *Client) chunkSet(ctx context.Context) (map[string]time.Time, error) {
	objs, err := c.list(ctx, c.prefix+"chunks/")
	if err != nil {
		return nil, err
	}
	set := make(map[string]time.Time, len(objs))
	for _, o := range objs {
		set[path.Base(o.Key)] = o.Modified
	}
	return set, nil
}

// ManifestError is a manifest object that could not be read; the other
// manifests are still used.
type ManifestError struct {
	Object string
	Err    error
}

func (e *ManifestError) Error() string { return e.Object + ": " + e.Err.Error() }
func (e *ManifestError) Unwrap() error { return e.Err }

// entries reads and merges every manifest of the project. Manifests that
// fail authentication are returned as errors beside the entries of the
// others.
func (c *Client) entries(ctx context.Context, project string) ([]Entry, []error, error) {
	ms, bad, err := c.manifests(ctx, c.key.ProjectID(project), project)
	return mergeEntries(ms), bad, err
}

// manifests reads the manifests of the project with id pid; project, when
// not empty, is the name they must carry.
func (c *Client) manifests(ctx context.Context, pid, project string) ([]manifest, []error, error) {
	objs, err := c.list(ctx, c.manifestDir(pid))
	if err != nil {
		return nil, nil, err
	}
	var ms []manifest
	var bad []error
	for _, o := range objs {
		b, err := c.get(ctx, o.Key, maxManifest)
		if err == nil {
			b, err = c.key.openManifest(pid+"/"+path.Base(o.Key), b, maxManifest)
		}
		var m manifest
		if err == nil {
			m, err = decodeManifest(b)
		}
		if err == nil && (c.key.ProjectID(m.Project) != pid || (project != "" && m.Project != project)) {
			err = fmt.Errorf("%w: manifest of project %q filed under another project", ErrCorrupt, m.Project)
		}
		if err != nil {
			bad = append(bad, &ManifestError{Object: c.where(o.Key), Err: err})
			continue
		}
		ms = append(ms, m)
	}
	return ms, bad, nil
}

// writeManifest adds a manifest object with entries. Its name is new
// (time and 64 random bits), so concurrent pushes never overwrite each
// other's manifests.
func (c *Client) writeManifest(ctx context.Context, project string, entries []Entry) (string, error) {
	pid := c.key.ProjectID(project)
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	name := fmt.Sprintf("%s-%s", time.Now().UTC().Format("20060102T150405.000000000Z"), hex.EncodeToString(rnd[:]))
	b, err := json.Marshal(manifest{Version: 1, Project: project, Entries: entries})
	if err != nil {
		return "", err
	}
	obj, err := c.key.sealManifest(pid+"/"+name, b)
	if err != nil {
		return "", err
	}
	key := c.manifestDir(pid) + name
	return c.where(key), c.put(ctx, key, obj)
}

// Projects lists the project ids present (names are only inside the
// encrypted manifests).
func (c *Client) projectIDs(ctx context.Context) ([]string, error) {
	objs, err := c.list(ctx, c.prefix+"projects/")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var ids []string
	for _, o := range objs {
		rest := strings.TrimPrefix(o.Key, c.prefix+"projects/")
		id, _, _ := strings.Cut(rest, "/")
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

var minioRemove = minio.RemoveObjectOptions{}
