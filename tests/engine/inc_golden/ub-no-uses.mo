rc 0
0 = 1 [true]
