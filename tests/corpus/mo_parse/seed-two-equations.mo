// RR-9459 section 4.4: TwoEquations (clean in the seed text). The real
// equation is labelled `e`, as in the CDG blocks `p : e -> x`, `not p : e -> x'`.
model TwoEquations
  Real x(start=0,fixed=true);
  Boolean p(start=false,fixed=true);
equation
  p = (x >= 1);
  /* e: */ 1 = if p then x else der(x);
end TwoEquations;
