// Command gen writes the SGLang tables of package catalog/sglangtab from
// an SGLang source tree, into OUT/<version>/ (default catalog/sglangtab),
// from the repository root:
//
//	go run ./catalog/sglangtab/gen -git SGLANG_GIT_DIR -ref v0.5.4.post3 -version 0.5.4.post3
//	go run ./catalog/sglangtab/gen -git SGLANG_GIT_DIR -ref 5c8bd8b51 -version 0.5.6.post2 -note "..."
//	go run ./catalog/sglangtab/gen -git SGLANG_GIT_DIR -ref main -version 0.5.19.dev0 -note "..."
//	go run ./catalog/sglangtab/gen -src CHECKOUT -ref main -commit HASH -date YYYY-MM-DD -version V
//
// -git reads ref's python/sglang from a git directory (a clone's .git or a
// bare mirror); -src reads a checkout or unpacked sdist, whose commit and
// date are then given. -version is the version that SGLang tree reports
// (-note says how it was decided where no tag names it; each set's
// meta.json keeps the note used). Existing files for that version are
// replaced; the output is the same for the same tree. Needs git, tar and
// python3 (the Python is parsed with its ast module, never run).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
	"github.com/sglaunch/sglaunch/internal/sglangsrc"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		var usage usageError
		if errors.As(err, &usage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	gitDir := fs.String("git", "", "git directory of an SGLang clone or mirror")
	src := fs.String("src", "", "directory holding python/sglang (instead of -git)")
	ref := fs.String("ref", "", "branch, tag or commit (with -git: the one read)")
	commit := fs.String("commit", "", "with -src: the tree's full commit hash")
	date := fs.String("date", "", "with -src: the commit date, YYYY-MM-DD")
	version := fs.String("version", "", "the version SGLang reports for that tree")
	note := fs.String("note", "", "how the version was decided, where no tag names it")
	out := fs.String("out", "catalog/sglangtab", "directory to write <version>/ under")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if *version == "" || *ref == "" || (*gitDir == "") == (*src == "") {
		return usageError{errors.New("want -version, -ref and one of -git or -src")}
	}
	meta := sglangtab.Meta{Version: *version, Ref: *ref, Commit: *commit, Date: *date, Note: *note}
	root := *src
	if *gitDir != "" {
		tmp, err := os.MkdirTemp("", "sglang-src-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		snap, err := sglangsrc.Unpack(ctx, *gitDir, *ref, tmp)
		if err != nil {
			return err
		}
		root, meta.Commit, meta.Date = tmp, snap.Commit, snap.Date
	}
	t, skipped, err := sglangsrc.Extract(ctx, root)
	if err != nil {
		return err
	}
	t.Meta = meta
	if err := sglangtab.Check(t); err != nil {
		return usageError{err}
	}
	files, err := sglangtab.Encode(t)
	if err != nil {
		return err
	}
	dir := filepath.Join(*out, *version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("SGLang %s (%s @ %.9s): %d env writes, %d env reads, %d server args, %d metrics, %d endpoints, %d log formats -> %s\n",
		meta.Version, meta.Ref, meta.Commit, len(t.EnvWrites), len(t.EnvReads), len(t.ServerArgs), len(t.Metrics), len(t.Endpoints), len(t.LogFormats), dir)
	for _, s := range skipped {
		fmt.Printf("  not parsed: %s: %s\n", s.File, s.Why)
	}
	return nil
}
