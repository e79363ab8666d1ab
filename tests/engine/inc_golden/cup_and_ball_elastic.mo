rc 0
e1 [true]
  x: o1 n0 [true] 23:17-23:18;
  u: o0 n0 [true] 23:22-23:23;
e2 [true]
  y: o1 n0 [true] 24:17-24:18;
  v: o0 n0 [true] 24:22-24:23;
e3 [true]
  x: o0 n0 [true] 25:29-25:30;
  u: o1 n0 [true] 25:17-25:18;
  lambda: o0 n0 [true] 25:22-25:28;
e4 [true]
  y: o0 n0 [true] 26:29-26:30;
  v: o1 n0 [true] 26:17-26:18;
  lambda: o0 n0 [true] 26:22-26:28;
k3 [!gamma]
  lambda: o0 n0 [!gamma] 29:19-29:25;
k4 [!gamma]
  x: o0 n0 [!gamma] 30:26-30:27;
  y: o0 n0 [!gamma] 30:32-30:33;
  s: o0 n0 [!gamma] 30:15-30:16;
t1 [gamma]
  v: o1 n1 [gamma] 33:22-33:23;
