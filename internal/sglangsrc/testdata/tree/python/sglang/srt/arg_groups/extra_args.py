import argparse
from typing import List, Literal, Optional

STYLES = ["plain", "fancy"]
DEFAULT_STYLE = "none"


class Registry:
    PARSERS = {"a": 1, "b": 2}
    FAST = "fast"


class ServerArgs:
    mode: A[Literal["fast", "slow"], "Mode."] = "fast"
    sizes: A[Optional[List[int]], "Sizes."] = None
    maybe: A[Optional[bool], "(Deprecated, use --mode) Maybe."] = None
    tokens: A[int, Arg(help="Tokens.", type_parser=human_readable_int)] = 10 * 1000

    @staticmethod
    def add_cli_args(parser):
        parser.add_argument("--old-mode", type=str, dest="mode", action=DeprecatedAliasStoreAction, new_flag="--mode", help="[Deprecated] Use --mode instead.")
        parser.add_argument("--gone", action=DeprecatedAction, error_message="--gone is no longer supported.", help=argparse.SUPPRESS)
        parser.add_argument("--parser", type=str, choices=["auto"] + list(Registry.PARSERS.keys()))
        parser.add_argument("--style", type=str, choices=STYLES + [DEFAULT_STYLE])
        parser.add_argument("--fast-mode", dest="mode", action=DeprecatedStoreConstAction, new_flag="--mode=fast", const_value=Registry.FAST)
        parser.add_argument("--computed", type=str, choices=[m.name for m in Registry])
