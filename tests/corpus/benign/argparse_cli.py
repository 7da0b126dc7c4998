# expect: LOW benign
import argparse
import sys


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Convert temperatures")
    p.add_argument("values", nargs="+", type=float)
    p.add_argument("--to", choices=["c", "f"], default="c")
    p.add_argument("-v", "--verbose", action="store_true")
    return p.parse_args(argv)


def convert(v, to):
    return (v - 32) * 5 / 9 if to == "c" else v * 9 / 5 + 32


def main(argv=None):
    args = parse_args(argv)
    for v in args.values:
        out = convert(v, args.to)
        print(f"{v} -> {out:.1f}{args.to.upper()}" if args.verbose else f"{out:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
