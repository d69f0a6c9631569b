package group

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxModelFiles bounds the weight-file listing of one model directory.
const maxModelFiles = 100000

// weightExt are the file name endings of weight files.
var weightExt = []string{".safetensors", ".bin", ".pt", ".pth", ".gguf", ".index.json"}

// ModelFiles lists the weight files under dir (two levels deep, as model
// repositories keep them), sorted by name; note says why there is no
// list: dir is no local directory (a hub id), or cannot be read.
func ModelFiles(dir string) (files []File, note string) {
	st, err := os.Stat(dir)
	switch {
	case dir == "":
		return nil, "no --model-path"
	case err != nil && os.IsNotExist(err):
		return nil, "not a local directory (a hub id?)"
	case err != nil:
		return nil, "unreadable: " + err.Error()
	case !st.IsDir():
		return nil, "not a directory"
	}
	root := filepath.Clean(dir)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && strings.Count(rel, string(filepath.Separator)) >= 1 {
				return filepath.SkipDir
			}
			return nil
		}
		if !isWeight(d.Name()) {
			return nil
		}
		if len(files) >= maxModelFiles {
			return fmt.Errorf("more than %d weight files", maxModelFiles)
		}
		// Hub caches keep weights as symlinks to blobs: the size is the
		// blob's.
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		files = append(files, File{Name: filepath.ToSlash(rel), Size: info.Size()})
		return nil
	})
	if err != nil {
		return nil, "unreadable: " + err.Error()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, ""
}

func isWeight(name string) bool {
	for _, e := range weightExt {
		if strings.HasSuffix(name, e) {
			return true
		}
	}
	return false
}
