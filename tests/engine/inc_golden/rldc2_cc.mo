rc 0
K1 [true]
  i1: o0 n0 [true] 27:10-27:12;
  i2: o0 n0 [true] 27:13-27:15;
  j1: o0 n0 [true] 27:7-27:9;
  j2: o0 n0 [true] 27:16-27:18;
K2 [true]
  u1: o0 n0 [true] 28:11-28:13;
  v1: o0 n0 [true] 28:14-28:16;
  w1: o0 n0 [true] 28:6-28:8;
  x1: o0 n0 [true] 28:3-28:5;
K3 [true]
  u1: o0 n0 [true] 29:3-29:5;
  u2: o0 n0 [true] 29:11-29:13;
  v1: o0 n0 [true] 29:6-29:8;
  v2: o0 n0 [true] 29:14-29:16;
K4 [true]
  u2: o0 n0 [true] 30:3-30:5;
  v2: o0 n0 [true] 30:6-30:8;
  w2: o0 n0 [true] 30:14-30:16;
  x2: o0 n0 [true] 30:11-30:13;
R1 [true]
  j1: o0 n0 [true] 31:11-31:13;
  x1: o0 n0 [true] 31:3-31:5;
R2 [true]
  j2: o0 n0 [true] 32:11-32:13;
  x2: o0 n0 [true] 32:3-32:5;
L1 [true]
  j1: o1 n0 [true] 33:15-33:17;
  w1: o0 n0 [true] 33:3-33:5;
L2 [true]
  j2: o1 n0 [true] 34:15-34:17;
  w2: o0 n0 [true] 34:3-34:5;
C1 [true]
  i1: o0 n0 [true] 35:3-35:5;
  v1: o1 n0 [true] 35:15-35:17;
C2 [true]
  i2: o0 n0 [true] 36:3-36:5;
  v2: o1 n0 [true] 36:15-36:17;
S1 [true]
  i1: o0 n0 [g1] 37:19-37:21;
  u1: o0 n0 [!g1] 37:28-37:30;
  s1: o0 n0 [true] 37:3-37:5;
S2 [true]
  i2: o0 n0 [g2] 38:19-38:21;
  u2: o0 n0 [!g2] 38:28-38:30;
  s2: o0 n0 [true] 38:3-38:5;
Z1 [true]
  i1: o0 n0 [!g1] 39:26-39:28;
  u1: o0 n0 [g1] 39:18-39:20;
Z2 [true]
  i2: o0 n0 [!g2] 40:26-40:28;
  u2: o0 n0 [g2] 40:18-40:20;
