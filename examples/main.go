package main

import "fmt"

func main() {
	x := fmt.Sprint(“a”)
	fmt.Println(x)
}
