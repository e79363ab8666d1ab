rc -3
