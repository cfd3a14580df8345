package catalog_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// setting reads one setting the suite's wrapper (test/engine/go-automation.test.ts) passes in the
// environment; run alone, the test fails saying how it is meant to run.
func setting(t *testing.T, name string) string {
	t.Helper()
	value := os.Getenv(name)
	if value == "" {
		t.Fatalf("%s is not set: this test runs against simulators the suite starts; run it with "+
			"`npx vitest run test/engine/go-automation.test.ts` from the repository root", name)
	}
	return value
}

// simulator is one simulator, driven over HTTP: the public API as another client (someone in the
// admin UI) uses it, and the `/_simulator/...` control routes for its request log and records.
type simulator struct {
	url   string
	token string
}

// loggedRequest is one entry of `GET /_simulator/requests` (simulator/request-log.ts).
type loggedRequest struct {
	Operation *string         `json:"operation"`
	Method    string          `json:"method"`
	Path      string          `json:"path"`
	Body      json.RawMessage `json:"body"`
	Status    any             `json:"status"`
}

// storedProduct is one entry of `GET /_simulator/products`.
type storedProduct struct {
	ID          string  `json:"id"`
	ProjectID   string  `json:"projectId"`
	Title       string  `json:"title"`
	Description *string `json:"description"`
	Slug        *string `json:"slug"`
	Status      string  `json:"status"`
}

func (s simulator) call(t *testing.T, method, path, version string, body any, into any) {
	t.Helper()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, s.url+path, reader)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if version != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
		req.Header.Set("Service-Api-Version", version)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, data)
	}
	if into != nil {
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, data)
		}
	}
}

func (s simulator) clearRequests(t *testing.T) {
	t.Helper()
	s.call(t, http.MethodDelete, "/_simulator/requests", "", nil, nil)
}

// requests returns the logged requests of one operation ("" for all), oldest first.
func (s simulator) requests(t *testing.T, operation string) []loggedRequest {
	t.Helper()
	var page struct {
		Data []loggedRequest `json:"data"`
	}
	path := "/_simulator/requests"
	if operation != "" {
		path += "?operation=" + url.QueryEscape(operation)
	}
	s.call(t, http.MethodGet, path, "", nil, &page)
	return page.Data
}

// operations names the operations the simulator received since the last clear, in order.
func (s simulator) operations(t *testing.T) []string {
	t.Helper()
	names := []string{}
	for _, r := range s.requests(t, "") {
		if r.Operation != nil {
			names = append(names, *r.Operation)
		}
	}
	return names
}

func (s simulator) products(t *testing.T) map[string]storedProduct {
	t.Helper()
	var page struct {
		Data []storedProduct `json:"data"`
	}
	s.call(t, http.MethodGet, "/_simulator/products", "", nil, &page)
	byID := map[string]storedProduct{}
	for _, p := range page.Data {
		byID[p.ID] = p
	}
	return byID
}

// The API versions the operations accept (provider/contract/schemas.ts).
const (
	apiVersion           = "2026-07-11"
	productCreateVersion = "2026-06-27"
)

func (s simulator) createProduct(t *testing.T, body map[string]any) storedProduct {
	t.Helper()
	var made storedProduct
	s.call(t, http.MethodPost, "/api/v1/public/products", productCreateVersion, body, &made)
	return made
}

func (s simulator) updateProduct(t *testing.T, id string, body map[string]any) {
	t.Helper()
	s.call(t, http.MethodPatch, "/api/v1/public/products/"+url.PathEscape(id), apiVersion, body, nil)
}

// jsonOf is a logged body as compact JSON with sorted keys: what the test compares and prints.
func jsonOf(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var value any
	if err := json.Unmarshal(raw, &value); err != nil {
		t.Fatalf("body %s: %v", raw, err)
	}
	data, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}

// terminal is what a user would have read: every CLI run's stdout and stderr, in order. The secret
// checks read all of it.
type terminal struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *terminal) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *terminal) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// exitCode is the CLI's exit code an Automation API error carries: its text ends with
// "code: N / stdout: … / stderr: …" (auto's autoError exposes no accessor).
func exitCode(t *testing.T, err error) int {
	t.Helper()
	m := regexp.MustCompile(`\ncode: (-?\d+)\n`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("no exit code in the Automation API error: %v", err)
	}
	code, _ := strconv.Atoi(m[1])
	return code
}

// report prints one line for the wrapper (and the closing note) to read back.
func report(format string, args ...any) {
	fmt.Printf("go-automation: "+format+"\n", args...)
}

func mustNotContain(t *testing.T, where, text string, secrets ...string) {
	t.Helper()
	for _, secret := range secrets {
		if strings.Contains(text, secret) {
			t.Fatalf("%s contains a secret (%d characters, starting %q)", where, len(secret), secret[:4])
		}
	}
}
