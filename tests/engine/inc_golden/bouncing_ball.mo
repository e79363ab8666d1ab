rc 0
e1 [true]
  h: o1 n0 [true] 17:17-17:18;
  v: o0 n0 [true] 17:22-17:23;
e2 [true]
  v: o1 n0 [true] 18:17-18:18;
t1 [(h <= 0)]
  v: o1 n1 [(h <= 0)] 20:22-20:23;
