# The graph form of the isolated oracle's wire (oracle_wire: a value past the tree form's depth, or one that contains
# itself, crosses as a flat table of nodes), decoded here: split from oracle_wire for size. It holds no state and
# imports nothing, so it reads the same as a module on the trusted side and as the first part of the worker's source
# (OracleFiles.workerSource).


def ungraph(x, leaf, base, max_nodes, max_graph_depth, error):
    """The value of a graph (see _graph), checked whole: every node reached from node 0 within max_graph_depth, lists and
    dicts made empty first and filled last (a cycle passes through one of them), tuples and sets built after their
    members. A cycle through tuples or sets alone, or an unhashable member of a set or key, is garbage."""
    if len(x) != 3 or x[1] != 0 or type(x[2]) is not list or not 0 < len(x[2]) <= max_nodes:
        raise error("bad graph")
    nodes = x[2]
    n = len(nodes)
    kids = []
    for node in nodes:
        if type(node) is not list or len(node) != 2 or node[0] not in ("v", "l", "t", "d", "s", "fs"):
            raise error("bad graph node: %.80r" % (node,))
        if node[0] == "v":
            kids.append(())
            continue
        ks = node[1]
        if type(ks) is not list or any(type(i) is not int or not 0 <= i < n for i in ks) or node[0] == "d" and len(ks) % 2:
            raise error("bad graph node: %.80r" % (node,))
        kids.append(ks)
    depth = [-1] * n  # breadth-first from node 0: each node's shortest path
    depth[0], order = base, [0]
    for i in order:
        for c in kids[i]:
            if depth[c] < 0:
                depth[c] = depth[i] + 1
                if depth[c] > max_graph_depth:
                    raise error("value nested deeper than %d" % max_graph_depth)
                order.append(c)
    if len(order) != n:
        raise error("graph has %d nodes no path reaches" % (n - len(order)))
    objs = [None] * n
    for i, (tag, v) in enumerate(nodes):
        if tag == "l":
            objs[i] = []
        elif tag == "d":
            objs[i] = {}
        elif tag == "v":
            if type(v) is list and v and v[0] in ("l", "t", "d", "s", "fs", "G"):
                raise error("a graph's value node holds a container")
            objs[i] = leaf(v)
    built = [objs[i] is not None or nodes[i][0] == "v" for i in range(n)]
    for i in range(n):  # tuples and sets, members first (iterative: a chain of tuples may be max_graph_depth long)
        if built[i]:
            continue
        stack, on, pos = [i], {i}, {i: 0}
        while stack:
            j = stack[-1]
            ks, p = kids[j], pos[j]
            while p < len(ks) and built[ks[p]]:
                p += 1
            pos[j] = p
            if p < len(ks):
                c = ks[p]
                if c in on:  # c is j's ancestor here: a cycle of tuples and sets only
                    raise error("a graph's cycle passes through no list or dict")
                on.add(c)
                pos[c] = 0
                stack.append(c)
                continue
            ms = [objs[c] for c in ks]
            objs[j] = tuple(ms) if nodes[j][0] == "t" else set(ms) if nodes[j][0] == "s" else frozenset(ms)
            built[j] = True
            on.discard(j)
            stack.pop()
    for i, (tag, ks) in enumerate(nodes):
        if tag == "l":
            objs[i].extend(objs[c] for c in ks)
        elif tag == "d":
            o = objs[i]
            for a in range(0, len(ks), 2):
                o[objs[ks[a]]] = objs[ks[a + 1]]
    return objs[0]
