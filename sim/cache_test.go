package sim

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/statedir"
)

// TestCachePlantedByAnotherUser pins issue 12 defect 11: with HOME unset
// the cache went under the shared temporary directory and an existing
// sim-<key> directory was used as is, so another local user's code ran as
// the server. The cache must be the user's own: a directory above it that
// others can write to, or a sim-<key> that another user owns, is refused
// with an error naming it.
func TestCachePlantedByAnotherUser(t *testing.T) {
	cat := catalog.SGLangArgsJSON()
	key, err := Key(cat)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("shared parent", func(t *testing.T) {
		shared := filepath.Join(t.TempDir(), "shared")
		if err := os.Mkdir(shared, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(shared, 0o777) // past the umask
		_, err := Ensure(t.Context(), filepath.Join(shared, "sglaunch"), cat)
		if !errors.Is(err, statedir.ErrUnsafe) {
			t.Errorf("got %v, want ErrUnsafe", err)
		}
	})
	t.Run("own root with a wide mode is tightened", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "sglaunch")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		dir, err := Ensure(t.Context(), root, cat)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{root, dir} {
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: mode %04o, want 0700", p, fi.Mode().Perm())
			}
		}
	})
	t.Run("a sim directory another user owns", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to make a directory another user owns")
		}
		root := filepath.Join(t.TempDir(), "sglaunch")
		planted := filepath.Join(root, "sim-"+key)
		if err := os.MkdirAll(planted, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(planted, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		_, err := Ensure(t.Context(), root, cat)
		if !errors.Is(err, statedir.ErrUnsafe) {
			t.Errorf("got %v, want ErrUnsafe", err)
		}
	})
	t.Run("a link in place of the sim directory", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "sglaunch")
		os.MkdirAll(root, 0o700)
		if err := os.Symlink(t.TempDir(), filepath.Join(root, "sim-"+key)); err != nil {
			t.Fatal(err)
		}
		if _, err := Ensure(t.Context(), root, cat); !errors.Is(err, statedir.ErrUnsafe) {
			t.Errorf("got %v, want ErrUnsafe", err)
		}
	})
}
