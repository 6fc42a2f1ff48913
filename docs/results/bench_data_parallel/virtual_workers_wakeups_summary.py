# Summary of virtual_workers_wakeups_run.sh: medians per cell, paired after/before ratios.
import json,statistics,sys
out=sys.argv[1]; rounds=int(sys.argv[2])
res={}
for which in ("before","after"):
  for t in ("1","2"):
    for m in ("plain","mean","adasum"):
      v=[]
      for r in range(1,rounds+1):
        j=json.load(open(f"{out}/{which}/{m}-t{t}-{r}/trial.json"))
        v.append(1e3*j["accumulated_submission_time"]/j["steps"])
      res[(which,t,m)]=v
for t in ("1","2"):
  print(f"{t} thread(s): ms/step median (min-max)")
  for m in ("plain","mean","adasum"):
    for which in ("before","after"):
      v=res[(which,t,m)]; p=statistics.median(res[(which,t,"plain")])
      print(f"  {m:7s} {which:6s} {statistics.median(v):7.2f} ({min(v):.2f}-{max(v):.2f})  x{statistics.median(v)/p:.3f} of plain")
  # paired after/before per round
  for m in ("mean","adasum"):
    ratios=[a/b for a,b in zip(res[("after",t,m)],res[("before",t,m)])]
    print(f"  paired after/before {m}: median {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")
for which in ("before","after"):
  for m in ("plain","mean","adasum"):
    print(which, m, "2t/1t", round(statistics.median(res[(which,"2",m)])/statistics.median(res[(which,"1",m)]),3))
json.dump({f"{a}|{b}|{c}":v for (a,b,c),v in res.items()}, open(f"{out}/summary.json","w"), indent=1)
