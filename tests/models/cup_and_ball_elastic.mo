// The elastic Cup-and-Ball in Modelica: RR-9459 section 5.2.4's listing
// (free flight `if not gamma`, the impact law `when gamma`), rendered as
// shared/papers/notes-mode-changes-impulses-rimis-modelica.md section 1.8
// proposes: `when gamma then reinit(v, -alpha*pre(v)); end when;` with
// der(y) = v. gamma is defined from the left limit of s (model (22)).
// Its MEL twin is tests/models/cup_and_ball_elastic_mo.mel.
//
// Expected: the change gamma: F -> T enters the transient mode gamma = T
// (the straight rope, one instant), whose system e1 e2 e3 e4 t1 over
// x. y. u. v. lambda is nonsingular: accepted, A_0 = S(T).
model CupAndBallElastic
  constant Real g = 9.81;
  constant Real L = 1.0;
  parameter Real alpha = 0.8;
  Real x(start=0,fixed=true);
  Real y(start=0,fixed=true);
  Real u(start=0,fixed=true);
  Real v(start=0,fixed=true);
  Real lambda;
  Real s;
  Boolean gamma(start=false,fixed=true);
equation
  /* e1: */ der(x) = u;
  /* e2: */ der(y) = v;
  /* e3: */ der(u) + lambda*x = 0;
  /* e4: */ der(v) + lambda*y + g = 0;
  gamma = pre(s) <= 0;
  if not gamma then
    /* k3: */ 0 = lambda;
    /* k4: */ s = L^2 - (x^2 + y^2);
  end if;
  when gamma then
    /* t1: */ reinit(v, -alpha*pre(v));
  end when;
end CupAndBallElastic;
