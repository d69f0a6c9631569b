"""A small stand-in server for the launcher's unit tests, driven by FAKE_*
variables. Run as: python3 -u fake_server.py --port N

FAKE_LINES           lines to print at start ("|" separates them)
FAKE_BIND_AFTER      seconds before the port is bound (connection refused before)
FAKE_WARMUP          seconds /health answers 503 after binding
FAKE_READY_LINE      1: log SGLang's ready line when /health turns 200
FAKE_EXIT_AFTER      seconds after start to exit with FAKE_EXIT_CODE (default 3)
FAKE_IGNORE          signals to ignore: TERM,INT,HUP
FAKE_SETSID_CHILD    path: start a child that calls setsid() and writes its pid there
FAKE_SETPGID_CHILD   path: start a child that calls setpgid(0, 0) and writes its pid there
FAKE_UNHEALTHY_AFTER seconds after ready when /health turns 500
FAKE_UNHEALTHY_FOR   seconds it stays 500 before it recovers (default: for good)
FAKE_CHATTER         seconds between output lines, forever
FAKE_NEVER_BIND      1: never bind the port
"""

import http.server
import os
import signal
import subprocess
import sys
import threading
import time

port = int(sys.argv[sys.argv.index("--port") + 1])
env = os.environ.get
start = time.monotonic()
state = {"ready_at": None}

for name in filter(None, env("FAKE_IGNORE", "").split(",")):
    signal.signal(getattr(signal, "SIG" + name), signal.SIG_IGN)
if "TERM" not in env("FAKE_IGNORE", ""):
    signal.signal(signal.SIGTERM, lambda *a: (print("got SIGTERM, exiting", flush=True), os._exit(0)))

for line in filter(None, env("FAKE_LINES", "").split("|")):
    print(line, flush=True)

for var, leave in (("FAKE_SETSID_CHILD", "os.setsid()"), ("FAKE_SETPGID_CHILD", "os.setpgid(0, 0)")):
    if env(var):
        code = (
            "import os, signal, sys, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            f"{leave}\n"
            "open(sys.argv[1] + '.tmp', 'w').write(str(os.getpid()))\n"
            "os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
            "time.sleep(3600)\n"
        )
        subprocess.Popen([sys.executable, "-c", code, env(var)])

if env("FAKE_EXIT_AFTER"):
    def die():
        time.sleep(float(env("FAKE_EXIT_AFTER")))
        print("fatal: simulated crash", file=sys.stderr, flush=True)
        os._exit(int(env("FAKE_EXIT_CODE", "3")))
    threading.Thread(target=die, daemon=True).start()

if env("FAKE_CHATTER"):
    def chatter():
        while True:
            time.sleep(float(env("FAKE_CHATTER")))
            print("still loading", flush=True)
    threading.Thread(target=chatter, daemon=True).start()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        now = time.monotonic()
        ready_at = state["ready_at"]
        if ready_at is None or now < ready_at:
            code = 503
        elif env("FAKE_UNHEALTHY_AFTER") and now > ready_at + float(env("FAKE_UNHEALTHY_AFTER")) and (
            not env("FAKE_UNHEALTHY_FOR")
            or now < ready_at + float(env("FAKE_UNHEALTHY_AFTER")) + float(env("FAKE_UNHEALTHY_FOR"))
        ):
            code = 500
        else:
            code = 200
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()


if env("FAKE_NEVER_BIND"):
    while True:
        time.sleep(3600)
time.sleep(float(env("FAKE_BIND_AFTER", "0")))
srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
print(f"Uvicorn running on http://127.0.0.1:{port}", flush=True)


def warm():
    time.sleep(float(env("FAKE_WARMUP", "0")))
    state["ready_at"] = time.monotonic()
    if env("FAKE_READY_LINE"):
        print("The server is fired up and ready to roll!", flush=True)


threading.Thread(target=warm, daemon=True).start()
srv.serve_forever()
