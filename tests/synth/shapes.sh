# shapes.sh: the hcasynth rate shapes of the confidence-band checks (sourced
# by tests/e2e/fold_bands.sh and bench/bands.sh, POSIX sh). synth_shape NAME
# prints the --counter arguments of one truth:
#   steps  300/800/300 M/s over 0-0.4/0.4-0.9/0.9-1
#   ramp   a linear rate from 200 to 1000 M/s
#   spike  400 M/s with 1600 M/s over 0.48-0.52
#   five   five unequal phases
#   two    two counters with different boundaries (0.3; 0.6)
synth_shape() {
    case $1 in
    steps) echo "--counter instructions:0-0.4=300e6,0.4-0.9=800e6,0.9-1=300e6" ;;
    ramp) echo "--counter instructions:0-1=200e6~1000e6" ;;
    spike) echo "--counter instructions:0-0.48=400e6,0.48-0.52=1600e6,0.52-1=400e6" ;;
    five) echo "--counter instructions:0-0.1=300e6,0.1-0.35=900e6,0.35-0.45=500e6,0.45-0.8=1200e6,0.8-1=200e6" ;;
    two) echo "--counter instructions:0-0.3=500e6,0.3-1=900e6 --counter cycles:0-0.6=1e9,0.6-1=2e9" ;;
    *) return 1 ;;
    esac
}
