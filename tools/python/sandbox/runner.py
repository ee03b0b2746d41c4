# Loupe's sandbox runner: runs one piece of model-written code inside the
# container, as `python3 -I -c BOOT RUNNER CODE` where BOOT compiles this
# file as "<loupe>". It empties the output folder,
# gives the code a load() helper for its inputs, runs it as the script
# "analysis.py" (so tracebacks name lines of the code, not of this file),
# and saves matplotlib figures that were drawn but never saved. When the
# code is done, every process it left behind is killed, so the container
# is clean for the next run. The exit status is the code's: 0, its
# SystemExit code, or 1 after an exception, whose traceback goes to stderr.
import os
import sys

CODE = sys.argv.pop(1)
sys.argv[0] = "analysis.py"
INPUT_DIR = os.environ.get("LOUPE_INPUT_DIR", "/input")
OUTPUT_DIR = os.environ.get("LOUPE_OUTPUT_DIR", "/output")


def _empty(folder):
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        if os.path.isdir(path) and not os.path.islink(path):
            _empty(path)
            os.rmdir(path)
        else:
            os.unlink(path)


def _manifest():
    import json

    try:
        with open(os.path.join(INPUT_DIR, "inputs.json")) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def load(name):
    """Return the input called name as a pandas DataFrame."""
    import pandas as pd

    inputs = _manifest()
    if name not in inputs:
        have = ", ".join(sorted(inputs)) or "none (pass table names in run_python's inputs)"
        raise KeyError("no input called %r; the inputs of this run are: %s" % (name, have))
    info = inputs[name]
    path = os.path.join(INPUT_DIR, info["file"])
    if info["format"] == "parquet":
        return pd.read_parquet(path)
    text, dates = [], []
    for col in info.get("columns", []):
        t = col["type"].upper()
        if t.startswith(("VARCHAR", "UUID", "ENUM")):
            text.append(col["name"])
        elif t.startswith(("DATE", "TIMESTAMP")):
            dates.append(col["name"])
    return pd.read_csv(path, dtype={c: str for c in text}, parse_dates=dates or False, low_memory=False)


class _FigureHook:
    """Patches pyplot, when the code imports it, so that plt.show() saves
    the open figures into the output folder and every figure's savefig is
    noted; figures left unsaved are saved when the code ends."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "matplotlib.pyplot":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _patch(module)

        spec.loader.exec_module = exec_module
        return spec


_saved = set()


def _patch(plt):
    import matplotlib.figure

    savefig = matplotlib.figure.Figure.savefig

    def noted_savefig(fig, *args, **kwargs):
        _saved.add(id(fig))
        return savefig(fig, *args, **kwargs)

    matplotlib.figure.Figure.savefig = noted_savefig

    def show(*args, **kwargs):
        _save_figures(plt)

    plt.show = show


def _save_figures(plt):
    for num in plt.get_fignums():
        fig = plt.figure(num)
        if id(fig) not in _saved:
            name = "figure_%d.png" % num
            n = 1
            while os.path.exists(os.path.join(OUTPUT_DIR, name)):
                n += 1
                name = "figure_%d_%d.png" % (num, n)
            fig.savefig(os.path.join(OUTPUT_DIR, name), dpi=100, bbox_inches="tight")
        plt.close(fig)


def _main():
    import linecache
    import traceback

    _empty(OUTPUT_DIR)
    os.chdir(OUTPUT_DIR)
    sys.meta_path.insert(0, _FigureHook())
    lines = CODE.splitlines(True)
    linecache.cache["analysis.py"] = (len(CODE), None, lines, "analysis.py")
    scope = {"__name__": "__main__", "__file__": "analysis.py", "__builtins__": __builtins__,
             "load": load, "INPUT_DIR": INPUT_DIR, "OUTPUT_DIR": OUTPUT_DIR}
    status = 0
    try:
        exec(compile(CODE, "analysis.py", "exec"), scope)
    except SystemExit as e:
        if e.code is None:
            status = 0
        elif isinstance(e.code, int):
            status = e.code
        else:
            print(e.code, file=sys.stderr)
            status = 1
    except BaseException as e:
        tb = e.__traceback__
        # Leave out this file's own frame: the model reads analysis.py's.
        while tb is not None and tb.tb_frame.f_code.co_filename != "analysis.py":
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb)
        status = 1
    try:
        plt = sys.modules.get("matplotlib.pyplot")
        if plt is not None:
            _save_figures(plt)
    except BaseException:
        traceback.print_exc()
        status = status or 1
    try:
        sys.stdout.flush()
        # The last line of stderr tells Loupe how many files to collect
        # (none: it skips collecting).
        files = sum(len(f) for _, _, f in os.walk(OUTPUT_DIR))
        sys.stderr.write("\x1eloupe-files=%d\n" % files)
        sys.stderr.flush()
    finally:
        # Kill what the code started and left running (pool workers, a
        # forked child): every process but the container's init and this
        # one. Then exit without running the code's atexit handlers.
        try:
            import signal

            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        os._exit(status)


_main()
