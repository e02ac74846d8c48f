#!/usr/bin/env python3
"""Writes an OCI image archive from a directory tree, without Docker.

  oci_image.py build --out IMAGE.tar --name NAME:TAG [--base BASE.tar] --layer DIR[:DEST[:UID]] ...
                     [--entrypoint JSON] [--cmd JSON] [--env K=V] [--user U] [--workdir W] [--label K=V]
  oci_image.py inspect IMAGE.tar       prints name, digests, config and layer sizes as JSON

Each --layer becomes one gzipped layer: DIR's contents placed under DEST (default /), owned by UID
when given (else as on disk). --base appends the layers to another archive's. The archive holds
both an OCI image layout (oci-layout, index.json, blobs/sha256/...) and Docker's manifest.json
pointing at the same blobs: containerd, skopeo and crane read the former, Jib's tar:// base-image
reader needs the latter. Entries are sorted and mtimes clamped, so the same tree gives the same
digests.
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import stat
import sys
import tarfile
import tempfile

MEDIA_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
MEDIA_CONFIG = "application/vnd.oci.image.config.v1+json"
MEDIA_LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
# Clamp for file mtimes (2024-01-01): a rebuilt rootfs gets fresh mtimes, the layer should not.
EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "1704067200"))
# Never part of an image: the runtime mounts these.
SKIP_CONTENT = {"proc", "sys", "dev", "run", "tmp"}


def fail(msg):
    print("oci_image: " + msg, file=sys.stderr)
    sys.exit(2)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class HashingWriter(io.RawIOBase):
    """Counts and hashes what passes through to the file below (the compressed layer)."""

    def __init__(self, f):
        self.f, self.h, self.n = f, hashlib.sha256(), 0

    def writable(self):
        return True

    def write(self, b):
        self.h.update(b)
        self.n += len(b)
        return self.f.write(b)


class DiffIdWriter(io.RawIOBase):
    """Hashes the uncompressed tar stream (the layer's diff_id) on its way into gzip."""

    def __init__(self, inner):
        self.inner, self.h = inner, hashlib.sha256()

    def writable(self):
        return True

    def write(self, b):
        self.h.update(b)
        return self.inner.write(b)


def _entries(src, rootfs):
    """Paths under src, sorted, parents before children; in a rootfs, SKIP_CONTENT dirs stay empty."""
    out = []
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        if rel == ".":
            dirs[:] = sorted(dirs)
        elif rootfs and rel.split(os.sep)[0] in SKIP_CONTENT:
            dirs[:] = []
            continue
        else:
            dirs[:] = sorted(dirs)
        # os.walk lists symlinks to directories among dirs without following them
        for name in sorted(dirs + files):
            out.append(os.path.join(rel, name) if rel != "." else name)
    return sorted(out)


def write_layer(src, dest, uid, blobs):
    """Tars src under dest into a gzipped blob in blobs; returns (digest, size, diff_id)."""
    if not os.path.isdir(src):
        fail("layer source " + src + " is not a directory")
    dest = dest.strip("/")
    fd, tmp = tempfile.mkstemp(dir=blobs, prefix=".layer-")
    with os.fdopen(fd, "wb") as f:
        hw = HashingWriter(f)
        with gzip.GzipFile(fileobj=hw, mode="wb", mtime=0, compresslevel=6) as gz:
            dw = DiffIdWriter(gz)
            with tarfile.open(fileobj=dw, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                if dest:
                    parts = dest.split("/")
                    for i in range(len(parts)):
                        ti = tarfile.TarInfo("/".join(parts[: i + 1]))
                        ti.type, ti.mode, ti.mtime = tarfile.DIRTYPE, 0o755, EPOCH
                        tar.addfile(ti)
                for rel in _entries(src, rootfs=not dest):
                    full = os.path.join(src, rel)
                    ti = tar.gettarinfo(full, arcname=os.path.join(dest, rel) if dest else rel)
                    ti.mtime = min(int(ti.mtime), EPOCH)
                    ti.uname = ti.gname = ""
                    if uid is not None:
                        ti.uid = ti.gid = uid
                    if ti.isreg():
                        with open(full, "rb") as data:
                            tar.addfile(ti, data)
                    elif ti.ischr() or ti.isblk() or ti.isfifo() or stat.S_ISSOCK(os.lstat(full).st_mode):
                        continue
                    else:
                        tar.addfile(ti)
    digest = hw.h.hexdigest()
    os.replace(tmp, os.path.join(blobs, digest))
    return "sha256:" + digest, hw.n, "sha256:" + dw.h.hexdigest()


def write_blob(blobs, data):
    digest = hashlib.sha256(data).hexdigest()
    with open(os.path.join(blobs, digest), "wb") as f:
        f.write(data)
    return "sha256:" + digest, len(data)


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def read_archive(path, into=None):
    """Returns (index, manifest, config) of an archive, checking every digest; extracts when into."""
    if not os.path.isfile(path):
        fail(path + ": no such image archive")
    with tarfile.open(path) as tar:
        names = {m.name.lstrip("./"): m for m in tar.getmembers()}

        def blob(digest):
            algo, hexd = digest.split(":", 1)
            member = names.get("blobs/%s/%s" % (algo, hexd))
            if member is None:
                fail("%s: blob %s missing" % (path, digest))
            data = tar.extractfile(member).read()
            if hashlib.sha256(data).hexdigest() != hexd:
                fail("%s: blob %s does not match its digest" % (path, digest))
            return data

        if "index.json" not in names:
            fail(path + ": no index.json (not an OCI archive)")
        index = json.loads(tar.extractfile(names["index.json"]).read())
        if len(index.get("manifests", [])) != 1:
            fail(path + ": index.json must name exactly one manifest")
        manifest = json.loads(blob(index["manifests"][0]["digest"]))
        config = json.loads(blob(manifest["config"]["digest"]))
        if into:
            for layer in manifest["layers"]:
                with open(os.path.join(into, layer["digest"].split(":", 1)[1]), "wb") as f:
                    f.write(blob(layer["digest"]))
        return index, manifest, config


def build(args):
    name = args.name
    if ":" not in name.rsplit("/", 1)[-1]:
        fail("--name " + name + " has no tag")
    with tempfile.TemporaryDirectory(prefix="oci-image-", dir=os.path.dirname(os.path.abspath(args.out))) as work:
        blobs = os.path.join(work, "blobs", "sha256")
        os.makedirs(blobs)
        if args.base:
            _, base_manifest, config = read_archive(args.base, into=blobs)
            layers = list(base_manifest["layers"])
        else:
            layers = []
            config = {"architecture": "amd64", "os": "linux",
                      "config": {"Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]},
                      "rootfs": {"type": "layers", "diff_ids": []}, "history": []}
        config.pop("created", None)
        cfg = config.setdefault("config", {})
        for spec in args.layer:
            parts = spec.split(":")
            src, dest = parts[0], parts[1] if len(parts) > 1 and parts[1] else "/"
            uid = int(parts[2]) if len(parts) > 2 and parts[2] else None
            digest, size, diff_id = write_layer(src, dest, uid, blobs)
            layers.append({"mediaType": MEDIA_LAYER, "digest": digest, "size": size})
            config["rootfs"]["diff_ids"].append(diff_id)
            config.setdefault("history", []).append({"created_by": "oci_image.py layer " + dest})
        if args.entrypoint is not None:
            cfg["Entrypoint"] = json.loads(args.entrypoint)
            cfg.pop("Cmd", None)
        if args.cmd is not None:
            cfg["Cmd"] = json.loads(args.cmd)
        for kv in args.env:
            key = kv.split("=", 1)[0]
            cfg["Env"] = [e for e in cfg.get("Env", []) if e.split("=", 1)[0] != key] + [kv]
        if args.user is not None:
            cfg["User"] = args.user
        if args.workdir is not None:
            cfg["WorkingDir"] = args.workdir
        for kv in args.label:
            k, v = kv.split("=", 1)
            cfg.setdefault("Labels", {})[k] = v
        config_digest, config_size = write_blob(blobs, canonical(config))
        manifest = {"schemaVersion": 2, "mediaType": MEDIA_MANIFEST,
                    "config": {"mediaType": MEDIA_CONFIG, "digest": config_digest, "size": config_size},
                    "layers": layers}
        manifest_digest, manifest_size = write_blob(blobs, canonical(manifest))
        tag = name.rsplit(":", 1)[1]
        index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                 "manifests": [{"mediaType": MEDIA_MANIFEST, "digest": manifest_digest, "size": manifest_size,
                                "annotations": {"io.containerd.image.name": name,
                                                "org.opencontainers.image.ref.name": tag}}]}
        docker = [{"Config": "blobs/sha256/" + config_digest.split(":")[1], "RepoTags": [name],
                   "Layers": ["blobs/sha256/" + l["digest"].split(":")[1] for l in layers]}]
        tmp_out = args.out + ".part"
        with tarfile.open(tmp_out, "w", format=tarfile.PAX_FORMAT) as tar:
            def add_bytes(arc, data):
                ti = tarfile.TarInfo(arc)
                ti.size, ti.mode, ti.mtime = len(data), 0o644, EPOCH
                tar.addfile(ti, io.BytesIO(data))
            add_bytes("oci-layout", canonical({"imageLayoutVersion": "1.0.0"}))
            add_bytes("index.json", canonical(index))
            add_bytes("manifest.json", canonical(docker))
            for d in ("blobs", "blobs/sha256"):
                ti = tarfile.TarInfo(d)
                ti.type, ti.mode, ti.mtime = tarfile.DIRTYPE, 0o755, EPOCH
                tar.addfile(ti)
            for blob in sorted(os.listdir(blobs)):
                if blob.startswith("."):
                    continue
                ti = tar.gettarinfo(os.path.join(blobs, blob), arcname="blobs/sha256/" + blob)
                ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname, ti.mode = EPOCH, 0, 0, "", "", 0o644
                with open(os.path.join(blobs, blob), "rb") as f:
                    tar.addfile(ti, f)
        os.replace(tmp_out, args.out)
    print(args.out)


def inspect(args):
    index, manifest, config = read_archive(args.archive)
    ann = index["manifests"][0].get("annotations", {})
    name = ann.get("io.containerd.image.name") or ann.get("org.opencontainers.image.ref.name")
    print(json.dumps({"name": name, "manifest": index["manifests"][0]["digest"],
                      "config": config.get("config", {}),
                      "layers": [{"digest": l["digest"], "size": l["size"]} for l in manifest["layers"]],
                      "compressedSize": sum(l["size"] for l in manifest["layers"])}, indent=2))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", required=True)
    b.add_argument("--name", required=True)
    b.add_argument("--base")
    b.add_argument("--layer", action="append", default=[])
    b.add_argument("--entrypoint")
    b.add_argument("--cmd")
    b.add_argument("--env", action="append", default=[])
    b.add_argument("--user")
    b.add_argument("--workdir")
    b.add_argument("--label", action="append", default=[])
    i = sub.add_parser("inspect")
    i.add_argument("archive")
    args = p.parse_args()
    if args.command == "build":
        if not args.layer and not args.base:
            fail("build needs --layer or --base")
        build(args)
    else:
        inspect(args)


if __name__ == "__main__":
    main()
