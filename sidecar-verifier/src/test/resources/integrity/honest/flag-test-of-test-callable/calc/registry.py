# What flask's ensure_sync, blinker's send and click's echo_via_pager do with a callable a test hands them: ask inspect
# whether it is a coroutine or generator function (inspect reads its __code__.co_flags, nothing else).
import asyncio
import inspect

MODE = "default"


def kind(fn):
    if asyncio.iscoroutinefunction(fn) or inspect.iscoroutinefunction(fn):
        return "async"
    if inspect.isgeneratorfunction(fn):
        return "generator"
    if inspect.isasyncgenfunction(fn):
        return "async-generator"
    return "sync"


def call(fn):
    return list(fn()) if kind(fn) == "generator" else fn()
