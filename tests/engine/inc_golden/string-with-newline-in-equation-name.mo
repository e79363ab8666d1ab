rc 0
der(x) = if g then y else -y [true]
  x: o1 n0 [true] 9:7-9:8;
  y: o0 n0 [true] 9:22-9:23;
y = 2 * x [true]
  x: o0 n0 [true] 10:11-10:12;
  y: o0 n0 [true] 10:3-10:4;
der(x) = if g then y else -y#2 [true]
  x: o1 n0 [true] 13:7-13:8;
  y: o0 n0 [true] 13:22-13:23;
y = 2 * "x;  // RR-9322 Fig. 4: RLDC2owitÿÿÿÿh c... [true]
  y: o0 n0 [true] 14:3-14:4;
der(x) = if g then y else -y#3 [true]
  x: o1 n0 [true] 35:7-35:8;
  y: o0 n0 [true] 35:22-35:23;
y = 2 * x#2 [true]
  x: o0 n0 [true] 36:11-36:12;
  y: o0 n0 [true] 36:3-36:4;
