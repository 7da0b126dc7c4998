# expect: LOW benign
from enum import Enum, auto


class State(Enum):
    IDLE = auto()
    RUNNING = auto()
    DONE = auto()


TRANSITIONS = {
    (State.IDLE, "start"): State.RUNNING,
    (State.RUNNING, "finish"): State.DONE,
    (State.RUNNING, "abort"): State.IDLE,
}


def step(state, event):
    return TRANSITIONS.get((state, event), state)


s = State.IDLE
for ev in ["start", "abort", "start", "finish"]:
    s = step(s, ev)
    print(ev, "->", s.name)
