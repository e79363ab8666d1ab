// The bouncing ball, the most common hybrid Modelica model: free fall, and
// at each impact the velocity reversed by the coefficient of restitution.
// The relation h <= 0 declares a transient mode (one instant, the impact);
// the long modes have h > 0.
//
// Expected (mdae modechange FILE --from 'h <= 0=0' --to 'h <= 0=1'): the
// event's system e1, e2, t1 over h., v. is overdetermined (the reinit and
// der(v) = -g both fix v.): e2 is erased at the event, the reinit kept
// (Modelica 3.6 section 8.3.6: reinit replaces v's value at the event), so
// the position is continuous and the velocity jumps: a reset of 1 instant.
model BouncingBall
  parameter Real e = 0.7 "coefficient of restitution";
  constant Real g = 9.81;
  Real h(start = 1, fixed = true) "height";
  Real v(start = 0, fixed = true) "velocity";
equation
  /* e1: */ der(h) = v;
  /* e2: */ der(v) = -g;
  when h <= 0 then
    /* t1: */ reinit(v, -e*pre(v));
  end when;
end BouncingBall;
