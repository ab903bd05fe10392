"""Rate every champion version, the baselines and chosen runs against each other.

python pipelines/league.py
python pipelines/league.py 'league.runs=[<run id>]' league.baselines=[maniac,mixed]"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "league", "sparring.pipelines.league:run")
