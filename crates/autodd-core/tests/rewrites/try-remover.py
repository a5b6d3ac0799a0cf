try:
    risky()
except ValueError:
    handle()
else:
    ok()
finally:
    cleanup()
