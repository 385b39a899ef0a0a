#!/usr/bin/env python3
"""Writes a Java client that uses every public type and member of a released jar's public API.

The build compiles that client (java/src/compat/java) against the current code: a public method
or type removed or changed incompatibly breaks the build, which is how "users' code that compiles
today keeps compiling" is checked without a published previous release to compare against.

Usage: scripts/api_client.py RELEASE_JAR VERSION > java/src/compat/java/io/scbf/compat/ClientOfX.java
Run it once per release on the jar of that release; the output is committed, never edited.
"""
import re
import subprocess
import sys

# The packages whose public types are the supported API (io.scbf.hbase.shared, .regionserver and
# .master are public for the coprocessors only, and io.scbf.hbase.client is internal).
API_PACKAGES = ["io.scbf", "io.scbf.hbase", "io.scbf.mapreduce", "io.scbf.hbase.cli"]
OBJECT_METHODS = {"toString", "hashCode", "equals", "getClass", "notify", "notifyAll", "wait"}
PRIMITIVE_ZERO = {
    "boolean": "false",
    "byte": "(byte) 0",
    "short": "(short) 0",
    "char": "(char) 0",
    "int": "0",
    "long": "0L",
    "float": "0f",
    "double": "0d",
}


def public_classes(jar):
    names = subprocess.run(["jar", "tf", jar], capture_output=True, text=True, check=True).stdout
    classes = []
    for entry in names.split():
        if not entry.endswith(".class") or "module-info" in entry:
            continue
        name = entry[: -len(".class")].replace("/", ".")
        if name.rsplit(".", 1)[0] in API_PACKAGES:
            classes.append(name)
    out = subprocess.run(
        ["javap", "-public", "-cp", jar] + sorted(classes), capture_output=True, text=True, check=True
    ).stdout
    blocks = re.split(r'^Compiled from "[^"]+"\n', out, flags=re.M)
    public = {}
    for block in blocks:
        lines = [l for l in block.strip().split("\n") if l.strip()]
        if not lines or not lines[0].startswith("public "):
            continue
        m = re.search(r"(class|interface|enum) ([\w.$]+)", lines[0])
        public[m.group(2)] = (lines[0], [l.strip() for l in lines[1:-1]])
    # A nested type is API only if every type enclosing it is public too.
    return {n: v for n, v in public.items() if all(o in public for o in enclosing(n))}


def enclosing(name):
    parts = name.split("$")
    return ["$".join(parts[:i]) for i in range(1, len(parts))]


def java_type(t):
    return t.replace("$", ".").replace("...", "[]")


def split_params(params):
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def argument(t):
    t = java_type(t)
    if t in PRIMITIVE_ZERO:
        return PRIMITIVE_ZERO[t]
    if re.fullmatch(r"[A-Z]", t):  # a method's own type variable
        return "null"
    return "(%s) null" % t


def uses(name, header, members, n):
    simple = java_type(name)
    generic = re.search(re.escape(name) + r"<([^>]*)>", header)
    ref_type = simple + ("<" + ",".join("?" for _ in generic.group(1).split(",")) + ">" if generic else "")
    lines = []
    is_abstract = " abstract " in header or " interface " in header
    is_enum = " enum " in header or "extends java.lang.Enum<" in header
    for m in members:
        if m.startswith("static {}"):
            continue
        sig = re.match(
            r"public (?P<mods>(?:(?:static|final|abstract|synchronized|native|default|transient|volatile) )*)"
            r"(?P<tparams><[^()]*> )?(?P<rest>.*?);$",
            m,
        )
        if not sig:
            continue
        mods, rest = sig.group("mods"), sig.group("rest")
        rest = re.sub(r" throws .*$", "", rest)
        call = re.match(r"(?P<ret>.*?)\s*(?P<name>[\w.$]+)\((?P<params>.*)\)$", rest)
        if call is None:  # a field
            ftype, fname = rest.rsplit(" ", 1)
            target = simple if "static" in mods else "x"
            lines.append("%s f%d = %s.%s;" % (java_type(ftype), n[0], target, fname))
            n[0] += 1
            continue
        args = ", ".join(argument(p) for p in split_params(call.group("params")))
        mname, ret = call.group("name"), call.group("ret")
        if ret == "" and mname == name:  # a constructor
            if not is_abstract and not is_enum:
                lines.append("%s c%d = new %s(%s);" % (ref_type, n[0], simple, args))
                n[0] += 1
            continue
        if mname in OBJECT_METHODS:
            continue
        target = simple if "static" in mods else "x"
        expr = "%s.%s(%s)" % (target, mname, args)
        if ret == "void" or sig.group("tparams"):
            lines.append(expr + ";")
        else:
            lines.append("%s r%d = %s;" % (java_type(ret), n[0], expr))
            n[0] += 1
    return ref_type, lines


def main():
    jar, version = sys.argv[1], sys.argv[2]
    classes = public_classes(jar)
    tag = version.replace(".", "")
    out = [
        "package io.scbf.compat;",
        "",
        "/**",
        " * Uses every public type and member of the scbf-hbase %s API, as a user's code would."
        % version,
        " *",
        " * <p>Generated by {@code scripts/api_client.py} from the %s jar; never edited. The build"
        % version,
        " * compiles it (it is never run): a change that would break users' code breaks the build.",
        " */",
        '@SuppressWarnings({"deprecation", "removal", "unused", "rawtypes", "unchecked"})',
        "final class ClientOf%s {" % tag,
        "  private ClientOf%s() {}" % tag,
    ]
    n = [0]
    for i, name in enumerate(sorted(classes)):
        header, members = classes[name]
        ref_type, lines = uses(name, header, members, n)
        out.append("")
        out.append("  static void use%d(%s x) throws Throwable {" % (i, ref_type))
        out.extend("    " + l for l in lines)
        out.append("  }")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
