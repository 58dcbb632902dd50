#!/usr/bin/env python3
"""Validates CloudEvents (JSON event format) against the CloudEvents 1.0 JSON schema, formats included.

    python3 Tests/Oracles/validate_cloudevents.py EVENT.json...

cloudevents.schema.json is the spec's own schema, `cloudevents/formats/cloudevents.json` of
github.com/cloudevents/spec at commit c2845a49bc9831be02f305a4a792401b932d77d4, unchanged. Each file holds one
event as a receiver got it. Prints one line per problem and exits 1 when there is any; exits 0 when every event is
valid. Formats are checked (`uri-reference`, `date-time`): when this Python lacks jsonschema or the checkers, the
script installs the pinned ones (cloudevents-requirements.txt) from PyPI into .build/cloudevents-venv and runs again
there.
"""

import json
import os
import subprocess
import sys
import venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(ROOT, ".build", "cloudevents-venv")
REQUIREMENTS = os.path.join(HERE, "cloudevents-requirements.txt")
NEEDED_FORMATS = {"uri-reference", "date-time", "uri"}


def checker_or_none():
    try:
        import jsonschema
    except ImportError:
        return None
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    if not NEEDED_FORMATS <= set(checker.checkers):
        return None
    return checker


def reexec_in_venv():
    python = os.path.join(VENV, "bin", "python3")
    if sys.executable == python:
        sys.exit("the pinned validator does not check " + ", ".join(sorted(NEEDED_FORMATS)))
    if not os.path.exists(python):
        venv.create(VENV, with_pip=True)
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", REQUIREMENTS],
        check=True)
    os.execv(python, [python] + sys.argv)


def main():
    checker = checker_or_none()
    if checker is None:
        reexec_in_venv()
    import jsonschema

    with open(os.path.join(HERE, "cloudevents.schema.json")) as handle:
        schema = json.load(handle)
    validator = jsonschema.Draft7Validator(schema, format_checker=checker)
    problems = 0
    for path in sys.argv[1:]:
        with open(path) as handle:
            event = json.load(handle)
        for error in validator.iter_errors(event):
            problems += 1
            print(f"{path}: {'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
