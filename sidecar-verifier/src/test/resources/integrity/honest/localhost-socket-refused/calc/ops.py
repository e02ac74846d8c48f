import socket


def _report_metric(name):
    # A metrics client pointed at a local agent that is not running: the connection is refused.
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(0.5)
    try:
        s.connect(("127.0.0.1", 9))
        s.sendall(name.encode())
    except OSError:
        pass
    finally:
        s.close()


def add(a, b):
    return a + b


def divide(a, b):
    _report_metric("divide")
    if b == 0:
        raise ValueError("division by zero")
    return a / b
