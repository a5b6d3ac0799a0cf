"""A double-entry ledger with transactions as context managers, savepoints,
rollback in `try`/`finally`, and an interest job.

Bug report: a nested transaction that rolls back to its savepoint also drops the
journal entries of the outer transaction recorded before the savepoint, so the
trial balance no longer sums to zero. The final check raises.

The setup of the accounts is frozen for autodd: it is the customer's data.
"""

from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")


class LedgerError(Exception):
    pass


class InsufficientFunds(LedgerError):
    pass


class Account:
    def __init__(self, code, name, kind, overdraft=Decimal(0)):
        self.code = code
        self.name = name
        self.kind = kind
        self.overdraft = overdraft

    def __repr__(self):
        return f"<{self.code} {self.name}>"


class Transaction:
    def __init__(self, ledger, memo):
        self.ledger = ledger
        self.memo = memo
        self.savepoint = None

    def __enter__(self):
        self.savepoint = len(self.ledger.journal)
        self.ledger.depth += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        self.ledger.depth -= 1
        if exc_type is not None:
            self.ledger.rollback(self.savepoint if self.ledger.depth == 0 else 0)
            return issubclass(exc_type, InsufficientFunds)
        return False

    def post(self, debit, credit, amount):
        self.ledger.post(debit, credit, amount, self.memo)


class Ledger:
    def __init__(self):
        self.accounts = {}
        self.journal = []
        self.depth = 0
        self.rollbacks = 0

    def open(self, code, name, kind, overdraft=0):
        self.accounts[code] = Account(code, name, kind, Decimal(overdraft))

    def balance(self, code):
        total = Decimal(0)
        for debit, credit, amount, _ in self.journal:
            if debit == code:
                total += amount
            if credit == code:
                total -= amount
        return total

    def post(self, debit, credit, amount, memo):
        amount = Decimal(amount).quantize(CENT, ROUND_HALF_EVEN)
        if amount <= 0:
            raise LedgerError(f"non-positive amount {amount}")
        source = self.accounts[credit]
        if source.kind == "asset" and self.balance(credit) - amount < -source.overdraft:
            raise InsufficientFunds(f"{source.name} cannot pay {amount}")
        self.journal.append((debit, credit, amount, memo))

    def transaction(self, memo):
        return Transaction(self, memo)

    def rollback(self, savepoint):
        self.rollbacks += 1
        del self.journal[savepoint:]

    def trial_balance(self):
        return sum((self.balance(code) for code in self.accounts), Decimal(0))


def pay_interest(ledger, rate):
    paid = Decimal(0)
    for code, account in ledger.accounts.items():
        if account.kind != "asset" or not code.startswith("sav"):
            continue
        interest = (ledger.balance(code) * Decimal(rate)).quantize(CENT)
        if interest > 0:
            ledger.post(code, "interest", interest, f"interest {rate}")
            paid += interest
    return paid


def statement(ledger, code):
    lines = [f"statement for {ledger.accounts[code].name}"]
    running = Decimal(0)
    for debit, credit, amount, memo in ledger.journal:
        if code not in (debit, credit):
            continue
        running += amount if debit == code else -amount
        lines.append(f"  {memo:<24} {amount if debit == code else -amount:>10} {running:>10}")
    return "\n".join(lines)


def run_day(ledger):
    with ledger.transaction("salary") as tx:
        tx.post("chk", "employer", "2500.00")
        tx.post("sav1", "chk", "400.00")
        with ledger.transaction("rent") as inner:
            inner.post("landlord", "chk", "1800.00")
            inner.post("landlord", "chk", "900.00")  # bounces: rolled back
    with ledger.transaction("groceries") as tx:
        tx.post("shop", "chk", "85.20")
    open_files = []
    try:
        open_files.append("report.tmp")
        paid = pay_interest(ledger, "0.0125")
    finally:
        open_files.clear()
    return paid


def main():
    ledger = Ledger()
    # autodd: freeze-start
    ledger.open("chk", "checking", "asset", overdraft=100)
    ledger.open("sav1", "savings", "asset")
    ledger.open("employer", "ACME payroll", "income")
    ledger.open("landlord", "landlord", "expense")
    ledger.open("shop", "grocer", "expense")
    ledger.open("interest", "bank interest", "income")
    # autodd: end-freeze
    paid = run_day(ledger)
    print(statement(ledger, "chk"))
    print(f"interest paid {paid}, rollbacks {ledger.rollbacks}")
    total = ledger.trial_balance()
    if total != 0:
        raise LedgerError(f"trial balance is {total}, " + "expected 0")
    entries = {memo for *_, memo in ledger.journal}
    for memo in ("salary", "groceries"):
        if memo not in entries:
            raise LedgerError("journal lost the " + f"'{memo}' entries")


main()
