#!/usr/bin/env python3
"""extract.py OWNER/REPO GITDIR -- copy every capture file of a bare git dir into $TCPSCOPE_CORPUS

A file is taken when its first bytes are a pcap/pcapng magic (after gunzip/bunzip2/unxz/
unzip where the name says it is compressed; zip passwords "infected"/"malware" are tried).
Names are OWNER__REPO__path_with_underscores; each kept file adds a line to SOURCES.tsv
(name, repository, path, commit) so every capture can be traced and cited."""
import sys, os, re, subprocess, gzip, bz2, lzma, zipfile, io, fcntl, tempfile
CORPUS = os.environ.get('TCPSCOPE_CORPUS', '/work/corpus')
MAXSZ = 300 * 1024 * 1024
MAGICS = {bytes.fromhex(h) for h in ['a1b2c3d4', 'd4c3b2a1', 'a1b23c4d', '4d3cb2a1', '0a0d0d0a']}
CAPEXT = re.compile(r'\.(pcap|pcapng|cap|ntar|pcap\d*|dmp|dump|trace|tcpdump|pcapnp|pkt|snoop|libpcap|lpc|erf)$', re.I)
COMP = re.compile(r'\.(gz|tgz|bz2|xz|zip)$', re.I)
NAMEHINT = re.compile(r'(pcap|\.cap|ntar|dump|trace|capture)', re.I)

def ismagic(b):
    return b[:4] in MAGICS

def git(gd, *a, **kw):
    return subprocess.run(['git', '--git-dir=' + gd] + list(a), capture_output=True, **kw)

def write(name, data, repo, path, commit, log):
    if len(data) > MAXSZ or not ismagic(data):
        return False
    dst = os.path.join(CORPUS, name)
    if not os.path.exists(dst) or os.path.getsize(dst) != len(data):
        fd, tmp = tempfile.mkstemp(prefix='.tmp-', dir=CORPUS)
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.rename(tmp, dst)
    log.append('\t'.join([name, repo, path, commit]))
    return True

def main():
    repo, gd = sys.argv[1], sys.argv[2]
    owner, rname = repo.split('/')
    prefix = owner + '__' + rname + '__'
    commit = git(gd, 'rev-parse', 'HEAD').stdout.decode().strip()
    out = git(gd, 'ls-tree', '-r', '-z', '--long', 'HEAD').stdout.decode('utf-8', 'replace')
    log = []
    n = 0
    for ent in out.split('\0'):
        if not ent:
            continue
        meta, path = ent.split('\t', 1)
        mode, typ, sha, size = meta.split()
        if typ != 'blob' or not size.isdigit():
            continue
        size = int(size)
        base = os.path.basename(path)
        iscap = CAPEXT.search(base)
        iscomp = COMP.search(base) and NAMEHINT.search(path)
        if not iscap and not iscomp and not (NAMEHINT.search(path) and '.' not in base):
            continue
        if size > MAXSZ or size < 24:
            continue
        r = git(gd, 'cat-file', 'blob', sha)
        if r.returncode != 0:
            continue
        data = r.stdout
        flat = path.replace('/', '_')
        try:
            if ismagic(data):
                n += write(prefix + flat, data, repo, path, commit, log)
            elif re.search(r'\.(gz|tgz)$', base, re.I) and data[:2] == b'\x1f\x8b':
                d = gzip.decompress(data)
                if d[:257+5][257:262] == b'ustar':  # tarball
                    import tarfile
                    with tarfile.open(fileobj=io.BytesIO(d)) as tf:
                        for m in tf.getmembers():
                            if m.isfile() and m.size <= MAXSZ:
                                md = tf.extractfile(m).read()
                                nm = re.sub(r'\.(tgz|tar\.gz)$', '', flat, flags=re.I) + '_' + m.name.replace('/', '_')
                                n += write(prefix + nm, md, repo, path + ':' + m.name, commit, log)
                else:
                    n += write(prefix + re.sub(r'\.gz$', '', flat, flags=re.I), d, repo, path, commit, log)
            elif base.lower().endswith('.bz2') and data[:3] == b'BZh':
                n += write(prefix + flat[:-4], bz2.decompress(data), repo, path, commit, log)
            elif base.lower().endswith('.xz'):
                n += write(prefix + flat[:-3], lzma.decompress(data), repo, path, commit, log)
            elif base.lower().endswith('.zip') and data[:2] == b'PK':
                zf = zipfile.ZipFile(io.BytesIO(data))
                mems = [m for m in zf.infolist() if not m.is_dir() and m.file_size <= MAXSZ]
                zbase = flat[:-4]
                for m in mems:
                    md = None
                    for pw in (None, b'infected', b'malware'):
                        try:
                            md = zf.read(m, pwd=pw); break
                        except Exception:
                            continue
                    if md is None:
                        continue
                    if md[:2] == b'\x1f\x8b':
                        try: md = gzip.decompress(md)
                        except Exception: continue
                    if len(mems) == 1 and CAPEXT.search(zbase):
                        nm = zbase
                    else:
                        nm = zbase + '_' + re.sub(r'\.gz$', '', m.filename).replace('/', '_')
                    n += write(prefix + nm, md, repo, path + ':' + m.filename, commit, log)
        except Exception as e:
            print('warn', path, e, file=sys.stderr)
    if log:
        with open(os.path.join(CORPUS, 'SOURCES.tsv'), 'a') as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.write('\n'.join(log) + '\n')
    print(repo, n)

main()
