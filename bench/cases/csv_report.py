"""Quarterly sales report for a small hardware wholesaler.

The script embeds the quarter's order export (a CSV text) and the product
catalog with regional targets (a JSON text), parses both, and prints revenue by
region, by sales rep, by product category, a monthly trend, margins and target
attainment, followed by a set of consistency checks that must all pass before
the report is mailed out.

Bug report: the "revenue by category" table shows the same amount on every line,
and the consistency checks raise ReportError because the category shares no
longer add up to 100%. The region, rep and monthly tables are correct.
"""

import csv
import io
import json
from collections import defaultdict
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

ZERO = Decimal("0")
CENT = Decimal("0.01")
HUNDRED = Decimal("100")

ORDERS_CSV = """\
order_id,date,region,rep,sku,qty,unit_price,discount_pct
SO-1040,2024-01-11,south,dana,BLT-10,274,0.45,2.5
SO-1041,2024-01-18,north,bruno,HMR-16,4,19.90,10
SO-1042,2024-01-07,north,alice,SPD-01,18,18.75,0
SO-1043,2024-01-08,north,bruno,BLT-10,779,0.45,0
SO-1044,2024-01-08,north,bruno,BLT-10,426,0.45,0
SO-1045,2024-01-18,south,dana,SPD-01,9,18.75,10
SO-1046,2024-01-04,east,emeka,NUT-06,1491,0.12,10
SO-1047,2024-01-21,south,dana,NUT-06,1421,0.12,0
SO-1048,2024-01-03,north,alice,DRL-18,7,129.00,2.5
SO-1049,2024-01-11,west,hana,HOS-25,13,31.00,0
SO-1050,2024-01-26,south,chen,NUT-06,1476,0.12,0
SO-1051,2024-01-17,west,hana,DRL-18,5,129.00,10
SO-1052,2024-01-03,north,bruno,HNG-02,116,3.80,0
SO-1053,2024-01-05,west,hana,BLT-10,884,0.45,0
SO-1054,2024-01-25,east,fiona,HOS-25,23,31.00,5
SO-1055,2024-01-19,west,goran,NUT-06,852,0.12,5
SO-1056,2024-02-23,north,alice,PNT-BK,25,26.50,10
SO-1057,2024-02-22,west,hana,SPD-01,-2,18.75,0
SO-1058,2024-02-01,west,hana,HNG-02,98,3.80,0
SO-1059,2024-02-16,north,alice,PNT-BK,9,26.50,0
SO-1060,2024-02-08,west,hana,DRL-18,2,129.00,0
SO-1061,2024-02-15,west,hana,HNG-02,75,3.80,2.5
SO-1062,2024-02-18,east,fiona,HOS-25,25,31.00,5
SO-1063,2024-02-08,south,chen,HNG-02,39,3.80,0
SO-1064,2024-02-22,south,chen,DRL-18,3,129.00,0
SO-1065,2024-02-10,north,alice,SPD-01,22,18.75,0
SO-1066,2024-02-20,east,emeka,SAW-07,11,42.00,0
SO-1067,2024-02-22,north,bruno,SAW-07,8,42.00,5
SO-1068,2024-02-13,west,goran,DRL-18,7,129.00,0
SO-1069,2024-02-07,north,alice,DRL-18,3,129.00,0
SO-1070,2024-02-11,north,alice,BLT-10,780,0.45,0
SO-1071,2024-02-18,north,bruno,HMR-16,3,19.90,0
SO-1072,2024-03-28,south,dana,HNG-02,101,3.80,0
SO-1073,2024-03-12,east,fiona,NUT-06,-53,0.12,2.5
SO-1074,2024-03-16,west,hana,DRL-18,5,129.00,0
SO-1075,2024-03-05,north,bruno,PNT-BK,20,26.50,2.5
SO-1076,2024-03-23,south,chen,PNT-WH,38,24.90,0
SO-1077,2024-03-05,north,bruno,NUT-06,834,0.12,10
SO-1078,2024-03-12,south,dana,PNT-WH,39,24.90,10
SO-1079,2024-03-25,east,emeka,HMR-16,9,19.90,2.5
SO-1080,2024-03-08,west,goran,PNT-WH,38,24.90,5
SO-1081,2024-03-12,north,alice,PNT-BK,-2,26.50,0
SO-1082,2024-03-07,east,fiona,HOS-25,15,31.00,0
SO-1083,2024-03-08,north,alice,DRL-18,4,129.00,0
SO-1084,2024-03-07,west,goran,DRL-18,6,129.00,2.5
SO-1085,2024-03-21,north,alice,SPD-01,30,18.75,0
SO-1086,2024-03-25,south,dana,HNG-02,75,3.80,2.5
SO-1087,2024-03-21,east,emeka,SPD-01,19,18.75,5
"""

CATALOG_JSON = """
{
  "currency": "EUR",
  "quarter": "2024-Q1",
  "products": {
    "BLT-10": {"name": "hex bolt M10, box", "category": "fasteners", "unit_cost": "0.21"},
    "NUT-06": {"name": "nut M6, box", "category": "fasteners", "unit_cost": "0.05"},
    "HNG-02": {"name": "door hinge 2in", "category": "fasteners", "unit_cost": "1.90"},
    "PNT-WH": {"name": "wall paint white 5l", "category": "paint", "unit_cost": "14.10"},
    "PNT-BK": {"name": "wall paint black 5l", "category": "paint", "unit_cost": "15.30"},
    "HOS-25": {"name": "garden hose 25m", "category": "garden", "unit_cost": "17.40"},
    "SPD-01": {"name": "border spade", "category": "garden", "unit_cost": "9.80"},
    "DRL-18": {"name": "cordless drill 18V", "category": "power tools", "unit_cost": "81.00"},
    "SAW-07": {"name": "jigsaw 700W", "category": "power tools", "unit_cost": "25.50"},
    "HMR-16": {"name": "claw hammer 16oz", "category": "hand tools", "unit_cost": "8.70"}
  },
  "targets": {"north": "5800.00", "south": "3500.00", "east": "3300.00", "west": "5200.00"},
  "reps": {
    "alice": "north", "bruno": "north", "chen": "south", "dana": "south",
    "emeka": "east", "fiona": "east", "goran": "west", "hana": "west"
  }
}
"""


class ReportError(Exception):
    pass


@dataclass
class Order:
    order_id: str
    month: str
    region: str
    rep: str
    sku: str
    qty: int
    unit_price: Decimal
    discount_pct: Decimal

    @property
    def gross(self):
        return self.unit_price * self.qty

    @property
    def revenue(self):
        factor = (HUNDRED - self.discount_pct) / HUNDRED
        return (self.gross * factor).quantize(CENT, ROUND_HALF_UP)

    @property
    def is_return(self):
        return self.qty < 0


def load_orders(text, catalog):
    orders = []
    seen = set()
    for lineno, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
        if row["order_id"] in seen:
            raise ReportError(f"line {lineno}: duplicate order {row['order_id']}")
        seen.add(row["order_id"])
        if row["sku"] not in catalog["products"]:
            raise ReportError(f"line {lineno}: unknown sku {row['sku']}")
        if catalog["reps"].get(row["rep"]) != row["region"]:
            raise ReportError(f"line {lineno}: {row['rep']} does not sell in {row['region']}")
        orders.append(
            Order(
                order_id=row["order_id"],
                month=row["date"][:7],
                region=row["region"],
                rep=row["rep"],
                sku=row["sku"],
                qty=int(row["qty"]),
                unit_price=Decimal(row["unit_price"]),
                discount_pct=Decimal(row["discount_pct"]),
            )
        )
    return orders


def load_catalog(text):
    data = json.loads(text)
    for sku, item in data["products"].items():
        item["unit_cost"] = Decimal(item["unit_cost"])
        item["sku"] = sku
    data["targets"] = {k: Decimal(v) for k, v in data["targets"].items()}
    return data


def totals_by(orders, key):
    totals = defaultdict(lambda: ZERO)
    for order in orders:
        totals[key(order)] += order.revenue
    return dict(totals)


def summarize_categories(orders, catalog):
    categories = sorted({item["category"] for item in catalog["products"].values()})
    summary = dict.fromkeys(categories, {"revenue": ZERO, "cost": ZERO, "units": 0})
    for order in orders:
        item = catalog["products"][order.sku]
        bucket = summary[item["category"]]
        bucket["revenue"] += order.revenue
        bucket["cost"] += item["unit_cost"] * order.qty
        bucket["units"] += order.qty
    return summary


def shares(amounts, total):
    if total == 0:
        return {key: ZERO for key in amounts}
    return {key: (value * HUNDRED / total).quantize(Decimal("0.1")) for key, value in amounts.items()}


def monthly_trend(orders):
    by_month = totals_by(orders, lambda o: o.month)
    months = sorted(by_month)
    trend = []
    previous = None
    for month in months:
        value = by_month[month]
        change = None if previous in (None, ZERO) else (value - previous) * HUNDRED / previous
        trend.append((month, value, change))
        previous = value
    return trend


def attainment(region_totals, targets):
    return {
        region: (region_totals.get(region, ZERO) * HUNDRED / target).quantize(Decimal("0.1"))
        for region, target in targets.items()
    }


def leaderboard(orders):
    rep_totals = totals_by(orders, lambda o: o.rep)
    returns = defaultdict(int)
    for order in orders:
        if order.is_return:
            returns[order.rep] += 1
    ranked = sorted(rep_totals.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(rank, rep, value, returns[rep]) for rank, (rep, value) in enumerate(ranked, 1)]


def table(title, rows, header):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = [title, "  " + "  ".join(str(h).ljust(w) for h, w in zip(header, widths))]
    for row in rows:
        lines.append("  " + "  ".join(str(c).rjust(w) for c, w in zip(row, widths)))
    return "\n".join(lines)


def check(condition, message):
    if not condition:
        raise ReportError(message)


def main():
    catalog = load_catalog(CATALOG_JSON)
    orders = load_orders(ORDERS_CSV, catalog)
    grand_total = sum((o.revenue for o in orders), ZERO)
    region_totals = totals_by(orders, lambda o: o.region)
    categories = summarize_categories(orders, catalog)
    category_revenue = {name: b["revenue"] for name, b in categories.items()}
    category_share = shares(category_revenue, grand_total)

    print(f"sales report {catalog['quarter']} ({len(orders)} orders, {catalog['currency']})")
    region_share = shares(region_totals, grand_total)
    reach = attainment(region_totals, catalog["targets"])
    print(table("revenue by region", [
        (r, region_totals[r], f"{region_share[r]}%", f"{reach[r]}%") for r in sorted(region_totals)
    ], ("region", "revenue", "share", "target")))
    print(table("reps", [
        (rank, rep, value, n) for rank, rep, value, n in leaderboard(orders)
    ], ("#", "rep", "revenue", "returns")))
    print(table("revenue by category", [
        (name, b["revenue"], f"{category_share[name]}%", b["revenue"] - b["cost"])
        for name, b in categories.items()
    ], ("category", "revenue", "share", "margin")))
    print(table("monthly trend", [
        (m, v, "-" if c is None else f"{c:+.1f}%") for m, v, c in monthly_trend(orders)
    ], ("month", "revenue", "change")))

    check(sum(region_totals.values(), ZERO) == grand_total, "regions do not add up")
    check(sum(totals_by(orders, lambda o: o.rep).values(), ZERO) == grand_total, "reps do not add up")
    check(sum(1 for o in orders if o.is_return) == 3, "unexpected number of returns")
    total_share = sum(category_share.values(), ZERO)
    check(abs(total_share - HUNDRED) <= Decimal("0.5"),
          f"category shares sum to {total_share}%, expected {HUNDRED}%")
    print("all checks passed")


if __name__ == "__main__":
    main()
