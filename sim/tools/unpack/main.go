package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/sim"
)

func main() {
	root := flag.String("cache", "", "cache root (default: the user cache directory's sglaunch/)")
	flag.Parse()
	if *root == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			fmt.Fprintln(os.Stderr, "unpack:", err)
			os.Exit(1)
		}
		*root = filepath.Join(dir, "sglaunch")
	}
	dir, err := sim.Ensure(context.Background(), *root, catalog.SGLangArgsJSON())
	if err != nil {
		fmt.Fprintln(os.Stderr, "unpack:", err)
		os.Exit(1)
	}
	fmt.Println(dir)
}
