// RR-9459 Fig. 4: the ideal clutch, as reconstructed in
// shared/papers/notes-mode-changes-impulses-rimis-modelica.md section 4.2
// (the seed listing is OCR-damaged; every token is the seed's).
model ClutchBasic
  parameter Real w01=1;     // initial speed of shaft 1
  parameter Real w02=1.5;   // initial speed of shaft 2
  parameter Real j1=1;      // moment of inertia of shaft 1
  parameter Real j2=2;      // moment of inertia of shaft 2
  parameter Real k1=0.01;   // friction coefficient, shaft 1
  parameter Real k2=0.0125; // friction coefficient, shaft 2
  parameter Real t1=5;      // time clutch is engaged
  parameter Real t2=7;      // time clutch is disengaged
  Boolean g(start=false);   // clutch mode variable
  Real w1(start = w01, fixed=true); // speed of shaft 1
  Real w2(start = w02, fixed=true); // speed of shaft 2
  Real f1;                  // torque exerted on shaft 1 by shaft 2
  Real f2;                  // torque exerted on shaft 2 by shaft 1
equation
  g = (time >= t1) and (time <= t2);
  j1*der(w1) = -k1*w1 + f1;
  j2*der(w2) = -k2*w2 + f2;
  0 = if g then w1-w2 else f1;
  f1 + f2 = 0;
end ClutchBasic;
