package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

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
	stub := &loadgentest.Server{TTFT: *ttft, ITL: *itl, Hostile: *hostile, Arrival: arrival}
	mux := http.NewServeMux()
	mux.Handle("/", stub)
	mux.HandleFunc("GET /stub/served", func(w http.ResponseWriter, _ *http.Request) { served(w, stub) })
	srv := &http.Server{Handler: mux, ConnContext: withConn}
	if err := srv.Serve(stampListener{l}); err != nil {
		fmt.Fprintln(os.Stderr, "stubserver:", err)
		os.Exit(1)
	}
}

// served answers GET /stub/served: how many streams got their first token
// since the last call, and the median TTFT they were served with, from
// their arrival on the machine (the truth a client's TTFT is judged by).
func served(w io.Writer, stub *loadgentest.Server) {
	d := stub.TakeServed()
	slices.Sort(d)
	var med time.Duration
	if n := len(d); n > 0 {
		med = (d[(n-1)/2] + d[n/2]) / 2
	}
	_ = json.NewEncoder(w).Encode(map[string]float64{"count": float64(len(d)), "median_ms": float64(med) / float64(time.Millisecond), "unstamped": float64(unstamped.Swap(0))})
}
