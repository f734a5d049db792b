"""Memory, CPU time, descendants and cores of processes, read from Linux's ``/proc``."""
import os

__all__ = ["cpu_seconds", "descendants", "machine_jiffies", "pin", "rss_mb"]

_TICK = os.sysconf("SC_CLK_TCK")


def rss_mb(pid):
    """Resident memory of process ``pid`` in MB (from /proc)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pids):
    """Total CPU time (user + system) of the processes ``pids`` that are still alive."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / _TICK


def machine_jiffies():
    """``(busy, total)`` clock ticks of all CPUs since boot (from /proc/stat)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return sum(fields) - idle, sum(fields)


def descendants(pid):
    """Process ids of every descendant of ``pid`` (children, their children, ...)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def pin(pid, cpus):
    """Keep every thread of process ``pid`` on the cores ``cpus`` (threads and processes it
    starts later inherit them)."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:  # the thread ended meanwhile
            pass
