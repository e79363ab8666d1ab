rc 0
e0 [true]
  y: o0 n0 [true] 17:13-17:14;
e1 [true]
  z: o0 n0 [true] 19:13-19:14;
e2 [true]
  x: o1 n0 [true] 21:17-21:18;
  y: o0 n0 [true] 21:36-21:37;
  yh: o0 n0 [true] 21:31-21:33;
  yl: o0 n0 [true] 21:26-21:28;
  z: o0 n0 [true] 21:22-21:23;
eh1 [true]
  x: o0 n0 [!bh] 24:38-24:39;
  yh: o0 n0 [bh] 24:30-24:32;
  sh: o0 n0 [true] 24:14-24:16;
eh2 [true]
  x: o0 n0 [bh] 25:29-25:30;
  yh: o0 n0 [!bh] 25:43-25:45;
el1 [true]
  x: o0 n0 [!bl] 28:45-28:46;
  yl: o0 n0 [bl] 28:30-28:32;
  sl: o0 n0 [true] 28:14-28:16;
el2 [true]
  x: o0 n0 [bl] 29:36-29:37;
  yl: o0 n0 [!bl] 29:43-29:45;
