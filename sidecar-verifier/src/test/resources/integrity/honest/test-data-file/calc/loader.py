import json


def load_cases(path):
    with open(path, encoding="utf-8") as f:
        return [tuple(c) for c in json.load(f)]
