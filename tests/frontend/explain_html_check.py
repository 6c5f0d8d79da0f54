#!/usr/bin/python3
"""Checks `rotor-cc --explain=html:FILE`: a well-formed, self-contained page with one section per
loop that states the loop's plan (as --explain=json gives it), and for a serial loop the blocking
access, its source line and the suggestions.

    explain_html_check.py ROTOR_CC CASES_DIR OUT_DIR case.cpp [case.cpp ...]
"""
import json
import os
import subprocess
import sys
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}
FORBIDDEN = {"script", "link", "img", "iframe", "object", "embed", "video", "audio", "source"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.doctype = [], [], False
        self.sections = []  # {"id", "h2", "text", "classes"}
        self.in_h2 = False

    def error_at(self, message):
        line, col = self.getpos()
        self.errors.append(f"line {line}:{col}: {message}")

    def handle_decl(self, decl):
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        if tag in FORBIDDEN:
            self.error_at(f"<{tag}> makes the page depend on something outside it")
        for name, value in attrs:
            if name == "src" or (name == "href" and not (value or "").startswith("#")):
                self.error_at(f"external reference {name}={value!r}")
            if name == "style" and "url(" in (value or ""):
                self.error_at("url() in a style attribute")
        if tag == "section":
            self.sections.append({"id": dict(attrs).get("id"), "h2": "", "text": "",
                                  "classes": set()})
        if self.sections and ("section" in self.stack or tag == "section"):
            for name, value in attrs:
                if name == "class":
                    self.sections[-1]["classes"].update((value or "").split())
        if tag == "h2":
            self.in_h2 = True
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag not in VOID:
            self.error_at(f"<{tag}/> is not a void element")
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.error_at(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
            return
        self.stack.pop()
        if tag == "h2":
            self.in_h2 = False

    def handle_data(self, data):
        if "section" in self.stack and self.sections:
            self.sections[-1]["text"] += data
            if self.in_h2:
                self.sections[-1]["h2"] += data
        if "style" in self.stack and ("url(" in data or "@import" in data):
            self.error_at("external resource in <style>")


def main(argv):
    rotor_cc, cases_dir, out_dir, cases = argv[1], argv[2], argv[3], argv[4:]
    out = os.path.join(out_dir, "explain_html_check.html")
    doc = json.loads(subprocess.run([rotor_cc, "--explain=json"] + cases, cwd=cases_dir,
                                    check=True, capture_output=True, text=True).stdout)
    subprocess.run([rotor_cc, "--explain=html:" + out] + cases, cwd=cases_dir, check=True)
    page = Page()
    with open(out, encoding="utf-8") as f:
        page.feed(f.read())
    page.close()
    errors = list(page.errors)
    if not page.doctype:
        errors.append("no <!DOCTYPE html>")
    if page.stack:
        errors.append(f"unclosed tags at the end: {page.stack}")
    if len(page.sections) != len(doc["loops"]):
        errors.append(f"{len(page.sections)} sections for {len(doc['loops'])} loops")
    for loop, section in zip(doc["loops"], page.sections):
        where = f"{loop['file']}:{loop['line']}"
        kind = loop["plan"]["kind"]
        if section["h2"].strip() != where:
            errors.append(f"section {section['id']}: heading {section['h2']!r}, expected {where!r}")
        if kind not in section["text"] or kind not in section["classes"]:
            errors.append(f"{where}: the section does not state the plan {kind!r}")
        if "#pragma rotor parallel_for" not in section["text"]:
            errors.append(f"{where}: the loop's source (with its pragma) is not shown")
        for field in loop["plan"].get("fields", []):
            if field not in section["text"]:
                errors.append(f"{where}: plan field {field!r} missing")
        for array in loop["arrays"]:
            if array["role"] not in section["text"]:
                errors.append(f"{where}: role of {array['name']} missing")
        if kind == "serial":
            for needed in ("Blocked by", "Suggestions"):
                if needed not in section["text"]:
                    errors.append(f"{where}: serial loop without {needed!r}")
            if "blocking" not in section["classes"]:
                errors.append(f"{where}: the blocking source line is not marked")
    if errors:
        print(f"{out}:", *errors, sep="\n  ")
        return 1
    print(f"{out}: {len(page.sections)} loops, well-formed and self-contained")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
