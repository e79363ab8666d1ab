rc 0
der(x) = u [true]
  x: o1 n0 [true] 15:7-15:8;
  u: o0 n0 [true] 15:12-15:13;
der(y) = v [true]
  y: o1 n0 [true] 16:7-16:8;
  v: o0 n0 [true] 16:12-16:13;
der(u) + lambda * x = 0 [true]
  x: o0 n0 [true] 17:19-17:20;
  u: o1 n0 [true] 17:7-17:8;
  lambda: o0 n0 [true] 17:12-17:18;
der(v) + lambda * y + g = 0 [true]
  y: o0 n0 [true] 18:19-18:20;
  v: o1 n0 [true] 18:7-18:8;
  lambda: o0 n0 [true] 18:12-18:18;
0 = if gamma then L^2 - (x^2 + y^2) else lambda [true]
  x: o0 n0 [gamma] 20:28-20:29;
  y: o0 n0 [gamma] 20:34-20:35;
  lambda: o0 n0 [!gamma] 21:21-21:27;
s = if gamma then -lambda else L^2 - (x^2 + y^2) [true]
  x: o0 n0 [!gamma] 23:28-23:29;
  y: o0 n0 [!gamma] 23:34-23:35;
  lambda: o0 n0 [gamma] 22:22-22:28;
  s: o0 n0 [true] 22:3-22:4;
