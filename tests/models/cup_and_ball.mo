// RR-9459 Fig. 7: the Cup-and-Ball, as reconstructed in
// shared/papers/notes-mode-changes-impulses-rimis-modelica.md section 4.2
// (repaired: `lambda:` and the missing `;`, the lost minus of -lambda).
model CupAndBall
  constant Real g = 9.81;
  constant Real L = 1.0;
  Real x(start=0,fixed=true);
  Real y(start=0,fixed=true);
  Real u(start=0,fixed=true);
  Real v(start=0,fixed=true);
  Real lambda;
  Real s;
  Boolean gamma(start=false,fixed=true);
equation
  der(x) = u;
  der(y) = v;
  der(u) + lambda*x = 0;
  der(v) + lambda*y + g = 0;
  gamma = (s <= 0);
  0 = if gamma then L^2 - (x^2 + y^2)
               else lambda;
  s = if gamma then -lambda
               else L^2 - (x^2 + y^2);
end CupAndBall;
