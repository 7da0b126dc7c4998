# expect: LOW benign
import argparse
import csv
import statistics


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("csvfile")
    parser.add_argument("column")
    args = parser.parse_args()
    values = []
    with open(args.csvfile, newline="") as f:
        for row in csv.DictReader(f):
            try:
                values.append(float(row[args.column]))
            except (KeyError, ValueError):
                continue
    if values:
        print("n", len(values), "mean", statistics.fmean(values), "max", max(values))


main()
