"""A simulated detokenizer process (``sglang::detokenizer``).

SGLang runs detokenization in its own process. The sim's does no work: it
names itself, sets a parent-death SIGKILL, reports ready, and waits for its
parent to go away, so that the server's process tree has the same shape as a
real one.
"""

import argparse
import os
import sys

from sglang.srt.scheduler import _idle_until_parent_exits
from sglang.srt.utils import kill_itself_when_parent_died, set_process_title


def main(argv=None):
    p = argparse.ArgumentParser(prog="sglang.srt.detokenizer_manager")
    p.add_argument("--parent", type=int, required=True)
    p.add_argument("--ready-fd", type=int, required=True)
    p.add_argument("--ctl-fd", type=int, required=True)
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    kill_itself_when_parent_died(args.parent)
    set_process_title("sglang::detokenizer")
    os.write(args.ready_fd, b"ready\n")
    os.close(args.ready_fd)
    _idle_until_parent_exits(args)


if __name__ == "__main__":
    main()
