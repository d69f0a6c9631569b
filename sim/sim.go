package sim

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/sglaunch/sglaunch/internal/statedir"
)

// Version is the version the simulated package reports, both as
// sglang.__version__ and through importlib.metadata: that of the SGLang
// tables generated from main (catalog/sglangtab), which the sim models,
// so that verify and preflight judge it by the very tables its writes
// come from.
const Version = "0.5.19.dev0+sim"

// The Python sources and the dist-info that makes importlib.metadata find
// the package. Listing files by glob keeps __pycache__ out of the binary.
//
//go:embed sglang/*.py sglang/srt/*.py sglang-0.5.19.dev0+sim.dist-info/METADATA
var files embed.FS

// catalogPath is where the sim's argparse builder reads the flag catalog.
const catalogPath = "sglang/srt/server_args.json"

// sources lists the embedded files in a stable order.
func sources() ([]string, error) {
	var out []string
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return fs.SkipDir
			}
			return nil
		}
		out = append(out, p)
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Unpack writes the sim's package tree into dir (creating it if needed),
// argsCatalogJSON, the flag catalog, to dir/sglang/srt/server_args.json,
// and the generated table of the variables SGLang writes into its own
// environment (for the sim's version) to dir/sglang/srt/sglang_env_writes.json.
// Afterwards dir is a directory to put on PYTHONPATH.
func Unpack(dir string, argsCatalogJSON []byte) error {
	if len(argsCatalogJSON) == 0 {
		return errors.New("unpack sim: empty flag catalog")
	}
	names, err := sources()
	if err != nil {
		return fmt.Errorf("unpack sim: %w", err)
	}
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return fmt.Errorf("unpack sim: %w", err)
		}
		if err := writeFile(dir, name, data); err != nil {
			return fmt.Errorf("unpack sim: %w", err)
		}
	}
	if err := writeFile(dir, catalogPath, argsCatalogJSON); err != nil {
		return fmt.Errorf("unpack sim: %w", err)
	}
	writes, err := envWritesJSON()
	if err != nil {
		return fmt.Errorf("unpack sim: %w", err)
	}
	if err := writeFile(dir, tablesPath, writes); err != nil {
		return fmt.Errorf("unpack sim: %w", err)
	}
	return nil
}

func writeFile(dir, name string, data []byte) error {
	dst := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// Key names one build of the sim with one catalog: the first 12 hex digits
// of a SHA-256 over the embedded files and the catalog.
func Key(argsCatalogJSON []byte) (string, error) {
	names, err := sources()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	fmt.Fprintf(h, "%s\x00%d\x00", catalogPath, len(argsCatalogJSON))
	h.Write(argsCatalogJSON)
	writes, err := envWritesJSON()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "%s\x00%d\x00", tablesPath, len(writes))
	h.Write(writes)
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// Ensure unpacks the sim into cacheRoot/sim-<key> unless it is already there,
// and returns that directory, the one to put on PYTHONPATH.
//
// The tree is written into a temporary directory beside the final one and
// renamed into place, so a reader never sees a partial tree. When several
// processes race, one rename wins and the others discard their copy and use
// the winner's.
func Ensure(ctx context.Context, cacheRoot string, argsCatalogJSON []byte) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("ensure sim: %w", err)
	}
	key, err := Key(argsCatalogJSON)
	if err != nil {
		return "", fmt.Errorf("ensure sim: %w", err)
	}
	// The server runs code from here: never from a directory another
	// user could have planted or could change.
	if err := statedir.Private(cacheRoot); err != nil {
		return "", fmt.Errorf("ensure sim: %w", err)
	}
	final := filepath.Join(cacheRoot, "sim-"+key)
	if _, err := os.Lstat(final); err == nil {
		if err := statedir.Owned(final); err != nil {
			return "", fmt.Errorf("ensure sim: %w", err)
		}
		return final, nil
	}
	tmp, err := os.MkdirTemp(cacheRoot, ".sim-"+key+"-*.tmp") // 0700
	if err != nil {
		return "", fmt.Errorf("ensure sim: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once the rename has moved it
	if err := Unpack(tmp, argsCatalogJSON); err != nil {
		return "", fmt.Errorf("ensure sim: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("ensure sim: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Lost the race: another process renamed its complete copy first.
		if isDir(final) && statedir.Owned(final) == nil {
			return final, nil
		}
		return "", fmt.Errorf("ensure sim: %w", err)
	}
	return final, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Files returns the embedded package tree, for callers that want to list or
// inspect it (e.g. to grep the sources the way a real install is grepped).
func Files() fs.FS { return files }
