"""Runs the reference's Python samples (a JSON list of {id, source}), each as a program of its
own (fresh globals) in this one interpreter; prints one JSON line per sample: id, ok, output,
error. Run by test/docs/samples.test.ts."""
import contextlib
import io
import json
import time
import sys
import traceback

with open(sys.argv[1], encoding="utf-8") as file:
    samples = json.load(file)

for sample in samples:
    output = io.StringIO()
    result = {"id": sample["id"], "ok": True}
    started = time.monotonic()
    try:
        with contextlib.redirect_stdout(output):
            exec(compile(sample["source"], f"{sample['id']}.py", "exec"), {"__name__": "__main__"})
    except BaseException as error:  # noqa: BLE001 - a sample's failure of any kind is reported
        result = {"id": sample["id"], "ok": False, "error": "".join(traceback.format_exception(error))}
    result["output"] = output.getvalue()
    result["ms"] = round((time.monotonic() - started) * 1000)
    sys.__stdout__.write(json.dumps(result) + "\n")
    sys.__stdout__.flush()
