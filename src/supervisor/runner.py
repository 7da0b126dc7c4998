# cordon's interpreter runner: runs cells of Python in one namespace inside a sandbox: every
# program cordon runs is a cell (a one-off request is one cell; a session, many). Started as
# `python3 -I -u -c <this file>`; it only ever talks to the supervisor through the
# container's stdin and stdout, and has no more rights than the program it runs.
#
# In (container stdin): frames of b"<decimal length>\n" + a JSON object
#   {"code", "files": [{"path", "data" (base64)}], "stdin" (base64 or null),
#    "max_files", "max_file_bytes", "last"}; max_files 0: no files are looked for or
#   returned; last: a one-off program's only cell, which ends as a script does (its
#   threads joined, its atexit functions run) before the cell's end is sent
# Out (container stdout, written by the framer): frames of 1 type byte + 4-byte big-endian
# length + payload: b"O" / b"E" the program's stdout / stderr bytes, b"F" one output file
# (JSON {"name", "media_type", "data" (base64)}), b"D" the cell's end (JSON {"exit_code",
# "interrupted", "skipped"}), b"A" the first time the cell asked Python for something the
# runtime record keeps (JSON [event, detail, seconds]), b"S" at the cell's end the count and
# last time of each (JSON {"events": [[event, detail, count, first, last]], "dropped"}).
# The program's fds 1 and 2 are pipes, framed by a process of their own (the framer, the
# runner's parent), so nothing it or its children print can pass for a frame by accident,
# and what it printed before it was stopped, OOM-killed or killed still comes out. The
# runner's own descriptors are reachable by the program (same process): what it reports
# about its own cells is the program's word; every limit is enforced from outside.

# Few imports, and those only when needed (mimetypes, traceback): every idle session holds
# what its runner imported.
import base64, builtins, io, json, os, select, signal, sys, threading, time, types

OUTPUTS = "outputs"


def private_copy(fd):
    copy = os.dup(fd)
    os.set_inheritable(copy, False)
    return copy


def private_pipe():
    read_end, write_end = os.pipe()
    os.set_inheritable(read_end, False)
    os.set_inheritable(write_end, False)
    return read_end, write_end


CONTROL_IN = private_copy(0)
CONTROL_OUT = None  # the runner's end of the framer's control pipe (see split_off_framer)
SEND_LOCK = threading.Lock()
RUNNER_PID = None  # set in the runner; a process the program forks is not the runner


def send(kind, payload):
    frame = kind + len(payload).to_bytes(4, "big") + payload
    with SEND_LOCK:
        view = memoryview(frame)
        while view:
            view = view[os.write(CONTROL_OUT, view):]


def send_json(kind, value):
    send(kind, json.dumps(value).encode())


def split_off_framer():
    """Forks. The parent becomes the framer: it writes the program's output (b"O", b"E")
    and the runner's own frames onto the container's stdout, passes interrupts on, and
    exits with the runner's status once the runner has gone. The child returns, as the
    runner; it returns the write ends of the output pipes (see ProgramPipes)."""
    global CONTROL_OUT, RUNNER_PID
    stdout_r, stdout_w = private_pipe()
    stderr_r, stderr_w = private_pipe()
    control_r, control_w = private_pipe()
    passed_on = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, passed_on)  # until the framer can pass them on
    runner = os.fork()
    if runner == 0:
        for end in (stdout_r, stderr_r, control_r):
            os.close(end)
        os.setpgid(0, 0)  # a program stopping its process group does not stop the framer
        CONTROL_OUT, RUNNER_PID = control_w, os.getpid()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, passed_on)
        return {1: stdout_w, 2: stderr_w}
    code = 1
    try:
        for end in (stdout_w, stderr_w, control_w, CONTROL_IN, 0):
            os.close(end)
        framer = Framer(runner, {stdout_r: b"O", stderr_r: b"E"}, control_r)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, passed_on)
        code = framer.run()
    finally:
        os._exit(code)


class Framer:
    """The framer's loop: the program's output is framed as it arrives; before each of
    the runner's own frames goes out, everything the program printed so far does. The
    runner's frames are passed through as they come (never held whole), and no output
    frame goes out in the middle of one."""

    def __init__(self, runner, outputs, control):
        self.runner = runner
        self.outputs = outputs  # read end -> frame kind, until its end of file
        self.control = control  # the runner's frames, until its end of file
        self.header = b""  # the start of the runner's next frame's header
        self.frame_left = 0  # bytes of the runner's current frame still to pass on
        self.out = private_copy(1)
        # Never a blocking read: one read end can be drained between select and read.
        for fd in (*outputs, control):
            os.set_blocking(fd, False)
        wake_r, wake_w = private_pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)  # the runner's exit and passed-on signals wake select
        self.wake = wake_r
        signal.signal(signal.SIGCHLD, lambda *_: None)
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self.pass_on)

    def pass_on(self, signum, _frame):
        try:
            os.kill(self.runner, signum)
        except OSError:
            pass

    def write(self, frame):
        view = memoryview(frame)
        while view:
            view = view[os.write(self.out, view):]

    def between_frames(self):
        return self.frame_left == 0 and not self.header

    def take_output(self, fd, most=65536):
        """Frames one read of a program pipe (at most `most` bytes); how many bytes it
        read (0 when it had nothing or ended)."""
        try:
            data = os.read(fd, most)
        except BlockingIOError:
            return 0
        if not data:
            del self.outputs[fd]
            return 0
        self.write(self.outputs[fd] + len(data).to_bytes(4, "big") + data)
        return len(data)

    def flush_outputs(self):
        """Frames what the program's pipes hold now; not what a busy writer adds
        meanwhile, which would keep this from ever returning."""
        import fcntl, termios
        for fd in list(self.outputs):
            pending = bytearray(4)
            fcntl.ioctl(fd, termios.FIONREAD, pending)
            left = int.from_bytes(pending, sys.byteorder)
            while left > 0 and fd in self.outputs:
                taken = self.take_output(fd, min(left, 65536))
                if taken == 0:
                    break
                left -= taken

    def take_control(self):
        """Passes on what one read of the runner's frames brings; False when it had
        nothing or ended."""
        try:
            data = os.read(self.control, 65536)
        except BlockingIOError:
            return False
        if not data:
            self.control = None
            return False
        view = memoryview(data)
        while view:
            if self.frame_left == 0:
                needed = 5 - len(self.header)
                self.header += bytes(view[:needed])
                view = view[needed:]
                if len(self.header) == 5:
                    self.flush_outputs()
                    self.write(self.header)
                    self.frame_left = int.from_bytes(self.header[1:5], "big")
                    self.header = b""
            else:
                chunk = view[:self.frame_left]
                self.write(chunk)
                self.frame_left -= len(chunk)
                view = view[len(chunk):]
        return True

    def runner_status(self):
        try:
            pid, status = os.waitpid(self.runner, os.WNOHANG)
        except ChildProcessError:
            return 1 << 8
        return None if pid == 0 else status

    def run(self):
        """Frames until the runner has gone; returns its exit code."""
        status = None
        while status is None:
            watched = [self.wake]
            if self.between_frames():
                watched += list(self.outputs)  # none in the middle of a runner's frame
            if self.control is not None:
                watched.append(self.control)
            ready, _, _ = select.select(watched, [], [])
            if self.wake in ready:
                os.read(self.wake, 512)
            if self.control is not None and self.control in ready:
                self.take_control()
            for fd in ready:
                if fd in self.outputs and self.between_frames():
                    self.take_output(fd)
            status = self.runner_status()
        # The runner is gone: its last frames and the program's last output go out (what
        # an orphan of the program prints later does not), then the runner's status.
        while self.control is not None and self.take_control():
            pass
        if self.between_frames():
            self.flush_outputs()
        code = os.waitstatus_to_exitcode(status)
        return 128 - code if code < 0 else code


class ProgramPipes:
    """The write ends of the program's output pipes, kept so every cell starts with fds
    1 and 2 on them, whatever the last cell did to its own."""

    def __init__(self, write_ends):
        self.write_ends = write_ends
        self.restore()

    def restore(self):
        for target_fd, write_end in self.write_ends.items():
            os.dup2(write_end, target_fd)


class Cells:
    """The state that carries from one cell to the next."""

    def __init__(self):
        # The cells' module is `__main__`, so classes they define pickle as a script's do.
        main_module = types.ModuleType("__main__")
        main_module.__builtins__ = builtins
        sys.modules["__main__"] = main_module
        self.namespace = main_module.__dict__
        self.in_cell = False
        self.number = 0
        self.last_exit = 0

    def on_interrupt(self, signum, frame):
        # The supervisor interrupts a cell that passed its deadline; between cells there
        # is nothing to interrupt.
        if self.in_cell:
            signal.default_int_handler(signum, frame)

    def run(self, cell, output):
        self.number += 1
        output.restore()
        place_files(cell.get("files") or [])
        feed_stdin(cell.get("stdin"))
        # A run that returns no files (max_files 0) skips looking for them.
        returns_files = cell.get("max_files", 16) > 0
        before = snapshot(OUTPUTS) if returns_files else {}
        exit_code, interrupted = 0, False
        compiled = None
        self.in_cell = True
        try:
            try:
                compiled = compile(cell["code"], "<cell>", "exec")
                RECORD.start()
                exec(compiled, self.namespace)
                if cell.get("last"):
                    end_as_a_script_does()
            except SystemExit as stop:
                exit_code = exit_code_of(stop)
            except KeyboardInterrupt as error:
                interrupted, exit_code = True, 1
                print_error(error)
            except BaseException as error:
                exit_code = 1
                print_error(error)
            figures = figures_left_open(self.number) if returns_files else []
        except KeyboardInterrupt:
            interrupted, exit_code, figures = True, 1, []
        finally:
            self.in_cell = False
        if os.getpid() != RUNNER_PID:
            # A process the program forked (no exec) that came back here ends as a
            # script's child does, without speaking for the cell.
            flush_program_output()
            os._exit(exit_code)
        self.last_exit = exit_code
        RECORD.finish()
        flush_program_output()
        skipped = send_outputs(before, figures, cell) if returns_files else []
        send_json(b"D", {"exit_code": exit_code, "interrupted": interrupted, "skipped": skipped})


# What the runtime record keeps (PEP 578 audit events), and the argument that says what
# each was about.
RECORDED = {
    "open": 0, "os.remove": 0, "os.rename": 0, "os.mkdir": 0, "os.rmdir": 0,
    "os.chmod": 0, "os.chown": 0, "os.listdir": 0, "os.scandir": 0, "shutil.rmtree": 0,
    "os.truncate": 0, "os.link": 0, "os.symlink": 0, "os.utime": 0,
    "socket.connect": 1, "socket.bind": 1, "socket.sendto": 1, "socket.getaddrinfo": 0,
    "subprocess.Popen": 1, "os.system": 0, "os.exec": 1, "os.spawn": 2, "os.posix_spawn": 1,
    "os.fork": None, "os.forkpty": None, "os.kill": 0, "os.setuid": 0, "os.setgid": 0,
    "ctypes.dlopen": 0, "ctypes.dlsym": 1, "ctypes.addressof": None, "ctypes.cdata": None,
    "ctypes.PyObj_FromPtr": None, "import": 0, "marshal.loads": None, "marshal.load": None,
    "pickle.find_class": None, "sys.addaudithook": None, "sys._getframe": None,
    "code.__new__": None, "function.__new__": None, "object.__setattr__": None,
}
# Distinct (event, detail) pairs kept per cell; past it they are counted, not kept.
MOST_DISTINCT = 4096
DETAIL_CHARS = 200


class Record:
    """The cell's runtime record: the first of each distinct event is sent at once (so
    the supervisor can stop the run on it), repeats are counted and sent at the cell's end."""

    def __init__(self):
        self.seen, self.dropped, self.on, self.started = {}, 0, False, time.monotonic()

    def start(self):
        self.seen, self.dropped, self.started, self.on = {}, 0, time.monotonic(), True

    def hook(self, event, args):
        if not self.on or event not in RECORDED:
            return
        self.on = False  # the hook's own work raises no events of its own
        try:
            self.note(event, args)
        finally:
            self.on = True

    def note(self, event, args):
        index = RECORDED[event]
        detail = "" if index is None or index >= len(args) else describe(args[index])
        key = (event, detail)
        at = round(time.monotonic() - self.started, 6)
        entry = self.seen.get(key)
        if entry is not None:
            entry[0] += 1
            entry[2] = at
        elif len(self.seen) >= MOST_DISTINCT:
            self.dropped += 1
        else:
            self.seen[key] = [1, at, at]
            send_json(b"A", [event, detail, at])

    def finish(self):
        self.on = False
        events = [[e, d, n, first, last] for (e, d), (n, first, last) in self.seen.items()]
        send_json(b"S", {"events": events, "dropped": self.dropped})


def describe(value):
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "backslashreplace")
    elif isinstance(value, (list, tuple)):
        value = " ".join(str(v) for v in value)
    return str(value)[:DETAIL_CHARS]


RECORD = Record()


def exit_code_of(stop):
    code = stop.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def print_error(error):
    # The traceback without the runner's own frames (they are "<string>": the runner runs
    # as `python3 -c`), naming the program `<cell>`, unless the program broke its stderr.
    # Runner work: not part of the program's runtime record.
    recording, RECORD.on = RECORD.on, False
    try:
        import traceback
        shown = traceback.TracebackException(type(error), error, error.__traceback__)
        frames = [f for f in shown.stack if f.filename != "<string>"]
        shown.stack = traceback.StackSummary.from_list(frames)
        sys.stderr.write("".join(shown.format()))
    except Exception:
        pass
    finally:
        RECORD.on = recording


def safe_relative(path):
    parts = path.split("/")
    if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"unsafe file path {path!r}")
    return os.path.join(*parts)


def place_files(files):
    for item in files:
        path = safe_relative(item["path"])
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, mode=0o700, exist_ok=True)
        with open(path, "wb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW, 0o600)) as out:
            out.write(base64.b64decode(item["data"]))


def feed_stdin(data):
    """The cell's standard input: the bytes given (empty when none), then end of file."""
    held = os.memfd_create("stdin", os.MFD_CLOEXEC)
    try:
        os.write(held, base64.b64decode(data) if data else b"")
        os.lseek(held, 0, os.SEEK_SET)
        os.dup2(held, 0)
    finally:
        os.close(held)
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)))


# Media types of the files programs usually return; others ask the mimetypes module.
MEDIA_TYPES = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".svg": "image/svg+xml", ".pdf": "application/pdf", ".csv": "text/csv",
    ".txt": "text/plain", ".json": "application/json", ".html": "text/html",
    ".md": "text/markdown", ".parquet": "application/vnd.apache.parquet",
}


def media_type_of(name):
    known = MEDIA_TYPES.get(os.path.splitext(name)[1].lower())
    if known:
        return known
    import mimetypes
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def snapshot(root):
    """(size, mtime) of every regular file under `root`, by relative path."""
    seen = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if os.path.isfile(path) and not os.path.islink(path):
                seen[os.path.relpath(path, root)] = (info.st_size, info.st_mtime_ns)
    return seen


def figures_left_open(number):
    """Every matplotlib figure still open, as PNG bytes; the figures are then closed."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    drawn = []
    for index, num in enumerate(pyplot.get_fignums(), start=1):
        buffer = io.BytesIO()
        pyplot.figure(num).savefig(buffer, format="png")
        drawn.append((f"figure-{number}-{index}.png", buffer.getvalue()))
    pyplot.close("all")
    return drawn


def send_outputs(before, figures, cell):
    """Sends new or changed files under outputs/ and the figures, within the caps."""
    max_files, max_bytes = cell.get("max_files", 16), cell.get("max_file_bytes", 1 << 20)
    changed = [(n, s) for n, s in snapshot(OUTPUTS).items() if before.get(n) != s]
    candidates = [(f"{OUTPUTS}/{name}", None) for name, _ in sorted(changed)] + figures
    skipped = []
    for name, data in candidates:
        if data is None:
            size = os.lstat(name).st_size
            if size > max_bytes:
                skipped.append({"name": name, "reason": f"{size} bytes is over the cap of {max_bytes}"})
                continue
            with open(name, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as source:
                data = source.read(max_bytes + 1)
        if len(data) > max_bytes:
            skipped.append({"name": name, "reason": f"over the cap of {max_bytes} bytes"})
        elif max_files <= 0:
            skipped.append({"name": name, "reason": "over the cap on files per request"})
        else:
            max_files -= 1
            media = media_type_of(name)
            send_json(b"F", {"name": name, "media_type": media,
                             "data": base64.b64encode(data).decode()})
    return skipped


def end_as_a_script_does():
    """What `python3` does after a script's last line: wait for its threads, then run its
    atexit functions (multiprocessing joins its children there)."""
    threading._shutdown()
    import atexit
    atexit._run_exitfuncs()


def in_forked_child():
    """A process the program forked keeps no say in the runner's frames: its record is off
    and it gets a lock of its own (the parent's may have been held at the fork)."""
    global SEND_LOCK
    SEND_LOCK = threading.Lock()
    RECORD.on = False
    RECORD.start = lambda: None


def flush_program_output():
    # The framer sends what is in the pipes ahead of the cell's end.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def read_exactly(count):
    chunks, left = [], count
    while left:
        try:
            chunk = os.read(CONTROL_IN, min(left, 1 << 20))
        except KeyboardInterrupt:
            continue
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def next_cell():
    """The next cell from the supervisor, or None at the end of its input."""
    digits = b""
    while not digits.endswith(b"\n"):
        byte = read_exactly(1)
        if byte is None:
            return None
        digits += byte
        if len(digits) > 12:
            raise ValueError("bad frame header")
    body = read_exactly(int(digits))
    return None if body is None else json.loads(body)


def main():
    import warnings
    # plt.show() on the headless Agg backend: the figure comes back as a file instead.
    warnings.filterwarnings("ignore", message=".*non-GUI backend.*")
    warnings.filterwarnings("ignore", message=".*non-interactive.*cannot be shown")
    os.makedirs(OUTPUTS, mode=0o700, exist_ok=True)
    output = ProgramPipes(split_off_framer())
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True, line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True, line_buffering=True, errors="backslashreplace")
    sys.argv = ["-"]
    if os.path.isdir("/packages"):
        sys.path.insert(0, "/packages")  # a request's packages, installed before its code
    # Before any code of the program: the hook sees everything its cells ask Python to do.
    os.register_at_fork(after_in_child=in_forked_child)
    sys.addaudithook(RECORD.hook)
    cells = Cells()
    signal.signal(signal.SIGINT, cells.on_interrupt)
    while True:
        cell = next_cell()
        if cell is None:
            # The sandbox's exit code is the last cell's, as a script's would be.
            flush_program_output()
            os._exit(cells.last_exit)
        cells.run(cell, output)


main()
