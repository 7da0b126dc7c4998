# expect: BLOCKED fork_bomb
import subprocess

# "stress test" the scheduler
payload = "stress() { stress | stress & }; stress"
subprocess.Popen(["bash", "-c", payload], start_new_session=True)
