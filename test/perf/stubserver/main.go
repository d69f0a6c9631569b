package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	ttft := flag.Duration("ttft", 0, "time to first token")
	itl := flag.Duration("itl", 0, "time between tokens")
	hostile := flag.String("hostile", "", "answer every generation request in this hostile mode ("+strings.Join(loadgentest.HostileModes, ", ")+")")
	flag.Parse()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stubserver:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s\n", l.Addr())
	srv := &http.Server{Handler: &loadgentest.Server{TTFT: *ttft, ITL: *itl, Hostile: *hostile}}
	if err := srv.Serve(l); err != nil {
		fmt.Fprintln(os.Stderr, "stubserver:", err)
		os.Exit(1)
	}
}
