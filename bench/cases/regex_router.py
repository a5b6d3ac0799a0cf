"""A small web-framework router and an access-log replayer.

Routes are declared as templates such as `/users/<int:uid>/posts` and compiled to
regular expressions through a table of converters. The replayer parses an Apache
"combined" access log with a named-group regex, classifies clients (bots, mobile,
internal addresses), re-dispatches every request through the router and compares
the status code with the one recorded in the log, then prints a traffic report.

Bug report: after the documentation moved to language-prefixed URLs, every
`/<lang>/docs/<page>` request replays as 404 although production served it with
200; the replay raises RoutingError for the first such request.
"""

import re
from collections import Counter, defaultdict
from datetime import date

PLACEHOLDER_RE = re.compile(r"<(?:(?P<conv>[a-z]+):)?(?P<name>[A-Za-z_]\w*)>")
LOG_RE = re.compile(
    r'^(?P<ip>\d{1,3}(?:\.\d{1,3}){3}) (?P<ident>\S+) (?P<user>\S+) '
    r'\[(?P<time>[^\]]+)\] "(?P<method>[A-Z]+) (?P<target>\S+) (?P<proto>HTTP/\d\.\d)" '
    r'(?P<status>\d{3}) (?P<size>\d+|-)(?: "(?P<referrer>[^"]*)" "(?P<agent>[^"]*)")?$'
)
TIME_RE = re.compile(
    r"(?P<day>\d{2})/(?P<mon>[A-Z][a-z]{2})/(?P<year>\d{4}):"
    r"(?P<hour>\d{2}):(?P<minute>\d{2}):(?P<second>\d{2}) (?P<tz>[+-]\d{4})"
)
TARGET_RE = re.compile(r"^(?P<path>[^?#]*)(?:\?(?P<query>[^#]*))?")
QUERY_PAIR_RE = re.compile(r"(?P<key>[^&=]+)=?(?P<value>[^&]*)")
BOT_RE = re.compile(r"bot|crawler|spider|curl|wget", re.IGNORECASE)
MOBILE_RE = re.compile(r"Mobile|Android|iPhone")
PRIVATE_IP_RE = re.compile(r"^(?:10\.|127\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.)")
STATIC_EXT_RE = re.compile(r"\.(?P<ext>css|js|png|svg|ico)$")
MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}


def parse_date(text):
    year, month, day = map(int, text.split("-"))
    return date(year, month, day)


CONVERTERS = {
    "default": (r"[^/]+", str),
    "int": (r"\d+", int),
    "slug": (r"[a-z0-9]+(?:-[a-z0-9]+)*", str),
    "path": (r".+", str),
    "uuid": (r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}", str),
    "date": (r"\d{4}-\d{2}-\d{2}", parse_date),
    "lang": (r"[a-z]{2}(-[A-Z]{2})?", str),
}


class RoutingError(Exception):
    pass


class Route:
    def __init__(self, template, handler, methods=("GET",)):
        self.template = template
        self.handler = handler
        self.methods = set(methods)
        self.regex, self.names, self.funcs = self.compile(template)

    @staticmethod
    def compile(template):
        parts, names, funcs = ["^"], [], []
        pos = 0
        for m in PLACEHOLDER_RE.finditer(template):
            parts.append(re.escape(template[pos:m.start()]))
            pattern, func = CONVERTERS[m.group("conv") or "default"]
            parts.append(f"({pattern})")
            names.append(m.group("name"))
            funcs.append(func)
            pos = m.end()
        parts.append(re.escape(template[pos:]))
        parts.append("$")
        return re.compile("".join(parts)), names, funcs

    def match(self, path):
        m = self.regex.match(path)
        if not m:
            return None
        return {name: func(raw) for name, func, raw in zip(self.names, self.funcs, m.groups())}

    def build(self, **params):
        def fill(m):
            value = params[m.group("name")]
            return value.isoformat() if isinstance(value, date) else str(value)
        return PLACEHOLDER_RE.sub(fill, self.template)


class Router:
    def __init__(self):
        self.routes = []

    def add(self, template, methods=("GET",)):
        def register(handler):
            self.routes.append(Route(template, handler, methods))
            return handler
        return register

    def dispatch(self, method, path):
        allowed = False
        for route in self.routes:
            params = route.match(path)
            if params is None:
                continue
            if method not in route.methods:
                allowed = True
                continue
            return route.handler.__name__, route.handler(**params)
        return None, (405 if allowed else 404)

    def url_for(self, handler_name, **params):
        for route in self.routes:
            if route.handler.__name__ == handler_name:
                return route.build(**params)
        raise RoutingError(f"no route for {handler_name}")


USERS = {7: "grace", 17: "ada", 42: "linus"}
POSTS = {"hello-world": 7, "regex-tips": 17, "why-rust": 42}
DOCS = {"en": {"install", "usage", "faq"}, "en-GB": {"install", "usage"}, "de": {"install"}}
ASSETS = {"css/site.css", "js/app.js", "img/logo.svg", "favicon.ico"}
ORDERS = {"3f2b9c1e-7a4d-4e2b-9f10-0c6d5e4a3b21"}

app = Router()


@app.add("/")
def home():
    return 200


@app.add("/users/<int:uid>")
def user_detail(uid):
    return 200 if uid in USERS else 404


@app.add("/users/<int:uid>/posts")
def user_posts(uid):
    return 200 if uid in USERS else 404


@app.add("/blog/<slug:slug>")
def post_detail(slug):
    return 200 if slug in POSTS else 404


@app.add("/blog/archive/<date:day>")
def archive_day(day):
    return 200 if day.year >= 2020 else 410


@app.add("/static/<path:file>")
def static_file(file):
    return 200 if file in ASSETS else 404


@app.add("/<lang:lang>/docs/")
def docs_index(lang):
    return 200 if lang in DOCS else 404


@app.add("/<lang:lang>/docs/<slug:page>")
def docs_page(lang, page):
    return 200 if page in DOCS.get(lang, ()) else 404


@app.add("/api/orders/<uuid:order_id>", methods=("GET", "DELETE"))
def api_order(order_id):
    return 200 if order_id in ORDERS else 404


@app.add("/api/orders", methods=("POST",))
def api_create_order():
    return 201


@app.add("/search")
def search():
    return 200


ACCESS_LOG = r"""
192.168.1.20 - - [04/Mar/2024:09:12:01 +0100] "GET / HTTP/1.1" 200 5120 "-" "Mozilla/5.0 (X11; Linux x86_64)"
192.168.1.20 - - [04/Mar/2024:09:12:02 +0100] "GET /static/css/site.css HTTP/1.1" 200 880 "http://shop.example/" "Mozilla/5.0 (X11; Linux x86_64)"
192.168.1.20 - - [04/Mar/2024:09:12:02 +0100] "GET /static/js/app.js HTTP/1.1" 200 20211 "http://shop.example/" "Mozilla/5.0 (X11; Linux x86_64)"
66.249.66.1 - - [04/Mar/2024:09:13:40 +0100] "GET /blog/hello-world HTTP/1.1" 200 7301 "-" "Googlebot/2.1 (+http://www.google.com/bot.html)"
66.249.66.1 - - [04/Mar/2024:09:13:41 +0100] "GET /blog/archive/2023-12-24 HTTP/1.1" 200 3020 "-" "Googlebot/2.1 (+http://www.google.com/bot.html)"
203.0.113.9 - - [04/Mar/2024:09:15:07 +0100] "GET /users/17 HTTP/1.1" 200 2210 "-" "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Mobile/15E148"
203.0.113.9 - - [04/Mar/2024:09:15:09 +0100] "GET /users/17/posts HTTP/1.1" 200 4410 "http://shop.example/users/17" "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Mobile/15E148"
203.0.113.9 - - [04/Mar/2024:09:15:30 +0100] "GET /users/99 HTTP/1.1" 404 310 "-" "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Mobile/15E148"
198.51.100.4 - - [04/Mar/2024:09:20:11 +0100] "GET /search?q=regex&page=2 HTTP/1.1" 200 6120 "-" "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"
198.51.100.4 - - [04/Mar/2024:09:20:15 +0100] "GET /en/docs/ HTTP/1.1" 200 1500 "-" "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"
10.0.0.5 - deploy [04/Mar/2024:09:21:00 +0100] "POST /api/orders HTTP/1.1" 201 64 "-" "curl/8.4.0"
10.0.0.5 - deploy [04/Mar/2024:09:21:01 +0100] "GET /api/orders/3f2b9c1e-7a4d-4e2b-9f10-0c6d5e4a3b21 HTTP/1.1" 200 412 "-" "curl/8.4.0"
10.0.0.5 - deploy [04/Mar/2024:09:21:02 +0100] "PUT /api/orders/3f2b9c1e-7a4d-4e2b-9f10-0c6d5e4a3b21 HTTP/1.1" 405 0 "-" "curl/8.4.0"
this line was truncated by logrotate "GET /
198.51.100.4 - - [04/Mar/2024:09:22:43 +0100] "GET /de/docs/install HTTP/1.1" 200 9120 "http://shop.example/en/docs/" "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"
198.51.100.4 - - [04/Mar/2024:09:22:50 +0100] "GET /en-GB/docs/usage HTTP/1.1" 200 8800 "-" "Mozilla/5.0 (Windows NT 10.0; Win64; x64)"
198.51.100.77 - - [04/Mar/2024:09:23:05 +0100] "GET /static/img/logo.svg HTTP/1.1" 304 - "-" "Mozilla/5.0 (Linux; Android 14) Mobile"
198.51.100.77 - - [04/Mar/2024:09:23:06 +0100] "GET /favicon.ico HTTP/1.1" 404 0 "-" "Mozilla/5.0 (Linux; Android 14) Mobile"
157.55.39.2 - - [04/Mar/2024:09:30:00 +0100] "GET /blog/why-rust?utm_source=feed HTTP/1.1" 200 6900 "-" "Mozilla/5.0 (compatible; bingbot/2.0)"
"""


def parse_log(text):
    entries, malformed = [], 0
    for line in text.strip().splitlines():
        m = LOG_RE.match(line)
        if not m:
            malformed += 1
            continue
        entry = m.groupdict()
        t = TIME_RE.fullmatch(entry["time"])
        entry["hour"] = int(t.group("hour"))
        entry["month"] = MONTHS[t.group("mon")]
        target = TARGET_RE.match(entry["target"])
        entry["path"] = target.group("path")
        entry["query"] = {q.group("key"): q.group("value")
                          for q in QUERY_PAIR_RE.finditer(target.group("query") or "")}
        entry["status"] = int(entry["status"])
        entry["size"] = 0 if entry["size"] == "-" else int(entry["size"])
        entries.append(entry)
    return entries, malformed


def classify(entry):
    agent = entry.get("agent") or ""
    if BOT_RE.search(agent):
        return "bot"
    if PRIVATE_IP_RE.match(entry["ip"]):
        return "internal"
    return "mobile" if MOBILE_RE.search(agent) else "desktop"


def self_test():
    cases = [
        ("user_detail", {"uid": 42}, "/users/42"),
        ("post_detail", {"slug": "regex-tips"}, "/blog/regex-tips"),
        ("archive_day", {"day": date(2024, 2, 29)}, "/blog/archive/2024-02-29"),
        ("static_file", {"file": "img/logo.svg"}, "/static/img/logo.svg"),
    ]
    for name, params, expected in cases:
        url = app.url_for(name, **params)
        if url != expected:
            raise RoutingError(f"url_for({name}) built {url}, expected {expected}")
        handler, _ = app.dispatch("GET", url)
        if handler != name:
            raise RoutingError(f"{url} dispatched to {handler}, expected {name}")


def replay(entries):
    hits, mismatches = Counter(), []
    for entry in entries:
        if entry["status"] == 304:
            continue
        handler, status = app.dispatch(entry["method"], entry["path"])
        hits[handler or "-"] += 1
        if status != entry["status"]:
            mismatches.append((entry["method"], entry["path"], status, entry["status"]))
    return hits, mismatches


def report(entries, malformed, hits):
    classes = Counter(classify(e) for e in entries)
    bytes_by_class = defaultdict(int)
    for e in entries:
        bytes_by_class[classify(e)] += e["size"]
    assets = Counter(m.group("ext") for e in entries if (m := STATIC_EXT_RE.search(e["path"])))
    print(f"{len(entries)} requests, {malformed} malformed lines")
    for cls in sorted(classes):
        print(f"  {cls:<9}{classes[cls]:>3} requests {bytes_by_class[cls]:>7} bytes")
    print("  handlers: " + ", ".join(f"{h}={n}" for h, n in sorted(hits.items())))
    print("  assets: " + ", ".join(f"{ext}={n}" for ext, n in sorted(assets.items())))
    queries = [e["query"] for e in entries if e["query"]]
    print(f"  {len(queries)} requests with a query string: {queries}")


def main():
    self_test()
    entries, malformed = parse_log(ACCESS_LOG)
    hits, mismatches = replay(entries)
    report(entries, malformed, hits)
    if mismatches:
        method, path, got, logged = mismatches[0]
        raise RoutingError(f"replay mismatch: {method} {path} -> {got}, log says {logged}"
                           f" ({len(mismatches)} mismatches)")
    print("replay ok")


if __name__ == "__main__":
    main()
