# Threads of the test process that share the oracle's connection (gpt-engineer's test_concurrent_access: ten threads
# reading and writing one store) each make whole round trips: one thread's request and answer never interleave with
# another's. Before the connection held a lock per round trip, a second thread's request went out while the first
# waited, the first read the second's answer (a number not its own) and the grader called it a forged `channel` frame:
# a false Hacked for an honest tree. Real worker, unboxed.
import threading

TREE = {"store.py": '''
import time


class Store:
    def __init__(self):
        self.items = {}

    def put(self, key, value):
        time.sleep(0.001)  # the answer comes late: other threads' requests go out meanwhile unless the lock holds them
        self.items[key] = value

    def get(self, key):
        return self.items.get(key)


def double(x):
    return 2 * x
'''}


def run_threads(n, work):
    errors = []

    def body(i):
        try:
            work(i)
        except BaseException as e:  # OracleBroken is a BaseException: a thread's failure must reach the assert
            errors.append(repr(e))
    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return errors


def test_threads_sharing_the_connection_get_their_own_answers(oracle_tree):
    w = oracle_tree(TREE, "store")
    store = w.mod.Store()
    results = {}

    def work(i):
        for j in range(20):
            store.put("k%d-%d" % (i, j), i * 100 + j)
            results[(i, j)] = (store.get("k%d-%d" % (i, j)), w.mod.double(i * 100 + j))

    errors = run_threads(10, work)
    assert errors == [], errors[:3]
    assert w.conn.void is None and [a for a in w.conn.attempts.items if a["kind"] == "channel"] == []
    assert results == {(i, j): (i * 100 + j, 2 * (i * 100 + j)) for i in range(10) for j in range(20)}
    assert w.rec.broken == []


def test_the_first_calls_of_many_threads_start_one_worker(oracle_tree):
    # no worker yet: threads that call at once must not each start one (the loser's worker would answer nobody)
    w = oracle_tree(TREE)
    assert w.conn.proc is None
    barrier = threading.Barrier(8)

    def work(i):
        barrier.wait(10)
        assert w.session.request({"op": "imp", "name": "store"}).double(i) == 2 * i

    assert run_threads(8, work) == []
    assert w.conn.starts == 1 and w.conn.void is None
