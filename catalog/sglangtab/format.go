package sglangtab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
)

// header opens every table file: the tree it came from, so a file read
// alone still says its provenance.
type header struct {
	Version string `json:"sglang_version"`
	Commit  string `json:"commit"`
	Table   string `json:"table"`
}

// Encode renders t as one file per table (see Files), one row per line so
// that a regeneration diffs row by row.
func Encode(t *Tables) (map[string][]byte, error) {
	out := map[string][]byte{}
	meta, err := json.MarshalIndent(t.Meta, "", "  ")
	if err != nil {
		return nil, err
	}
	out["meta.json"] = append(meta, '\n')
	h := func(table string) header { return header{t.Meta.Version, t.Meta.Commit, table} }
	for name, rows := range map[string]any{
		"env_writes.json": t.EnvWrites, "env_reads.json": t.EnvReads, "server_args.json": t.ServerArgs,
		"metrics.json": t.Metrics, "endpoints.json": t.Endpoints, "log_formats.json": t.LogFormats,
	} {
		b, err := encodeRows(h(name[:len(name)-len(".json")]), rows)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", name, err)
		}
		out[name] = b
	}
	return out, nil
}

func encodeRows(h header, rows any) ([]byte, error) {
	var raw []json.RawMessage
	b, err := json.Marshal(rows)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(hb[:len(hb)-1])
	buf.WriteString(",\n\"rows\": [")
	for i, r := range raw {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n")
		buf.Write(r)
	}
	buf.WriteString("\n]}\n")
	return buf.Bytes(), nil
}

// Decode reads the files of one version's directory back.
func Decode(files map[string][]byte) (*Tables, error) {
	t := &Tables{}
	if err := json.Unmarshal(files["meta.json"], &t.Meta); err != nil {
		return nil, fmt.Errorf("meta.json: %w", err)
	}
	for name, dst := range map[string]any{
		"env_writes.json": &t.EnvWrites, "env_reads.json": &t.EnvReads, "server_args.json": &t.ServerArgs,
		"metrics.json": &t.Metrics, "endpoints.json": &t.Endpoints, "log_formats.json": &t.LogFormats,
	} {
		var f struct {
			header
			Rows json.RawMessage `json:"rows"`
		}
		if err := json.Unmarshal(files[name], &f); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if f.Version != t.Meta.Version || f.Commit != t.Meta.Commit {
			return nil, fmt.Errorf("%s: from SGLang %s @ %s, meta.json says %s @ %s", name, f.Version, f.Commit, t.Meta.Version, t.Meta.Commit)
		}
		if err := json.Unmarshal(f.Rows, dst); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return t, nil
}

// sourceRE is a row's provenance: a file under python/sglang and a line.
var sourceRE = regexp.MustCompile(`^python/sglang/[^:]+\.py:[1-9][0-9]*$`)

// Check reports the first row without a source (file:line), and a set
// without its version or commit.
func Check(t *Tables) error {
	if t.Meta.Version == "" || len(t.Meta.Commit) != 40 {
		return fmt.Errorf("meta: want a version and a 40-hex commit, got %q @ %q", t.Meta.Version, t.Meta.Commit)
	}
	check := func(table string, i int, src string) error {
		if !sourceRE.MatchString(src) {
			return fmt.Errorf("%s row %d: source %q is not python/sglang/FILE.py:LINE", table, i, src)
		}
		return nil
	}
	for i, r := range t.EnvWrites {
		if err := check("env_writes", i, r.Source); err != nil {
			return err
		}
	}
	for i, r := range t.EnvReads {
		if err := check("env_reads", i, r.Source); err != nil {
			return err
		}
	}
	for i, r := range t.ServerArgs {
		if err := check("server_args", i, r.Source); err != nil {
			return err
		}
	}
	for i, r := range t.Metrics {
		if err := check("metrics", i, r.Source); err != nil {
			return err
		}
	}
	for i, r := range t.Endpoints {
		if err := check("endpoints", i, r.Source); err != nil {
			return err
		}
	}
	for i, r := range t.LogFormats {
		if err := check("log_formats", i, r.Source); err != nil {
			return err
		}
	}
	return nil
}
