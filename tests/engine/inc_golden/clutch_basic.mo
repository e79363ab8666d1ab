rc 0
j1 * der(w1) = -k1 * w1 + f1 [true]
  w1: o1 n0 [true] 20:10-20:12;
  f1: o0 n0 [true] 20:25-20:27;
j2 * der(w2) = -k2 * w2 + f2 [true]
  w2: o1 n0 [true] 21:10-21:12;
  f2: o0 n0 [true] 21:25-21:27;
0 = if g then w1 - w2 else f1 [true]
  w1: o0 n0 [g] 22:17-22:19;
  w2: o0 n0 [g] 22:20-22:22;
  f1: o0 n0 [!g] 22:28-22:30;
f1 + f2 = 0 [true]
  f1: o0 n0 [true] 23:3-23:5;
  f2: o0 n0 [true] 23:8-23:10;
