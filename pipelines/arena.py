"""The arena: any agents against each other in one game, sandboxed, fanned out on Ray.

python pipelines/arena.py game=flagbots 'agent=cmd:python3 examples/agents/random_bot.py' \
    'field=["flagbots@depth=2",first]'
python pipelines/arena.py game=mus kind=round_robin \
    'field=[random,first,"cmd:sh examples/agents/first_bot.sh"]'
python pipelines/arena.py game=flagbots kind=sprt 'agent="flagbots@depth=3"' 'field=[random]'"""

from sparring.launch.app import launch

if __name__ == "__main__":
    launch(__file__, "arena", "sparring.pipelines.arena:run")
