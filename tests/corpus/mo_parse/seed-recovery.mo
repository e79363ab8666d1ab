model M
  Real x;
  Real z(start=
  Real y;
  Real w
  Boolean g;
equation
  g = x > 1;
  der(x) = if g then y else -y;
  y = 2 * x;
  z = x;
  if g then
    w = x;
    w =
  else
    w = 2 * x
  end if;
  x = 
end M;
