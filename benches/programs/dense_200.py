import os, json, subprocess, hashlib
from pathlib import Path

def step_0(data, out='out/0.json'):
    total = sum(x * 0 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_1(data, out='out/1.json'):
    total = sum(x * 1 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_2(data, out='out/2.json'):
    total = sum(x * 2 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_3(data, out='out/3.json'):
    total = sum(x * 3 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_4(data, out='out/4.json'):
    total = sum(x * 4 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_5(data, out='out/5.json'):
    total = sum(x * 5 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_6(data, out='out/6.json'):
    total = sum(x * 6 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_7(data, out='out/7.json'):
    total = sum(x * 7 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_8(data, out='out/8.json'):
    total = sum(x * 8 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_9(data, out='out/9.json'):
    total = sum(x * 9 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_10(data, out='out/10.json'):
    total = sum(x * 10 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_11(data, out='out/11.json'):
    total = sum(x * 11 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_12(data, out='out/12.json'):
    total = sum(x * 12 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_13(data, out='out/13.json'):
    total = sum(x * 13 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_14(data, out='out/14.json'):
    total = sum(x * 14 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_15(data, out='out/15.json'):
    total = sum(x * 15 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_16(data, out='out/16.json'):
    total = sum(x * 16 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_17(data, out='out/17.json'):
    total = sum(x * 17 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

def step_18(data, out='out/18.json'):
    total = sum(x * 18 for x in data if x % 2)
    names = [str(n).upper() for n in data]
    Path('out').mkdir(exist_ok=True)
    with open(out, 'w') as f:
        json.dump({'total': total, 'names': names}, f)
    h = hashlib.sha256(str(total).encode()).hexdigest()
    r = subprocess.run(['echo', h], capture_output=True)
    return r.stdout.decode().strip()

for i in range(10):
    print(step_0(list(range(i))))
