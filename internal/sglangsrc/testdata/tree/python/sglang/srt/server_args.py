import argparse
import dataclasses
import os
from typing import Annotated as A, Optional

from sglang.srt.environ import envs


@dataclasses.dataclass
class ServerArgs:
    model_path: A[str, Arg(help="Model.", aliases=["--model"])]
    tp_size: A[int, Arg(help="TP.", aliases=["--tp"])] = 1
    enable_widget: A[bool, "Turn widgets on."] = False
    hidden: A[int, Arg(help="x", no_cli=True)] = 3
    ratio: float = 0.5
    queue: A[list, "q"] = dataclasses.field(default_factory=list)

    def __post_init__(self):
        self._handle_env()
        self._handle_deterministic()

    def _handle_env(self):
        envs.SGLANG_WIDGET.set("1" if self.enable_widget else "0")
        os.environ["SGLANG_ALWAYS"] = "yes"
        if self.enable_widget:
            os.environ["SGLANG_WIDGET_MODE"] = "on"

    def _handle_deterministic(self):
        if not self.enable_widget:
            return
        if self.tp_size > 1:
            os.environ["NCCL_ALGO"] = "tree"

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--old-widget", action=DeprecatedAction, help="gone")
        parser.add_argument("--ratio", type=float, default=ServerArgs.ratio, choices=[0.5, 1.0])
